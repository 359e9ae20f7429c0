#if Prefs
import Foundation
import Testing
import TestScheduling

/// Arguments are checked before anything is opened: a refused command leaves no database
/// behind.
@Suite("Arguments checked before opening", .offThePool)
struct ValidationOrderTests {
    @Test("an empty key is refused before the database is created", arguments: [
        ["write", "", "v"],
        ["write", "", "5", "--type", "int"],
        ["read", ""],
        ["read-type", ""],
        ["delete", ""],
        ["rename", "", "b"],
        ["watch", ""],
    ])
    func emptyKeyCreatesNoDatabase(command: [String]) async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        let line = try await Prefs.fail(["--db", database] + command)
        #expect(line.contains("empty"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: database), "prefs \(command) created the database before refusing")
    }

    @Test("domains escapes an app name holding a newline, so each name is one line")
    func domainsEscapesNames() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path("config")
        let environment = ["XDG_CONFIG_HOME": config]
        try await Prefs.succeed(["--name", "two\nlines", "write", "k", "v"], environment: environment)
        try await Prefs.succeed(["--name", "plain", "write", "k", "v"], environment: environment)
        #expect(try await Prefs.succeed(["domains"], environment: environment) == "plain\ntwo\\nlines\n")
    }
}
#endif
