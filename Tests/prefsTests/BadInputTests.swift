#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("prefs bad input: one line on stderr starting with 'prefs: ', non-zero exit, nothing lost", .offThePool, .requiresSQLiteShell)
struct BadInputTests {
    static let badValues: [(type: String, value: String)] = [
        ("bool", "maybe"), ("bool", ""),
        ("int", "1.5"), ("int", "9223372036854775808"), ("int", ""), ("int", "12abc"),
        ("double", "abc"), ("double", "nan"), ("double", "inf"), ("double", "1e999"), ("double", ""),
        ("json", "{"), ("json", "{'a': 1}"), ("json", ""), ("json", "[1,]"), ("json", "{\"a\": 1} extra"),
        ("data", "not base64!"), ("data", "AAE"),
        ("date", "yesterday"), ("date", "2024-02-30"), ("date", "2024-05-01T10:30:00"), ("date", "2024-05-01T25:00:00Z"),
        ("url", "not a url"), ("url", "/relative/path"), ("url", ""),
    ]

    @Test("a value that does not parse as its --type is refused, naming the value and type; no database is created",
          arguments: badValues.map { [$0.type, $0.value] })
    func badTypedValue(_ pair: [String]) async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let line = try await Prefs.fail(["--db", database, "write", "key", "--type", pair[0], "--", pair[1]], status: 1)
        #expect(line.contains("not a valid \(pair[0]) value"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test("a bad value leaves the stored value as it was")
    func badValueKeepsOldValue() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "count", "7", "--type", "int"])
        try await Prefs.fail(["--db", database, "write", "count", "seven", "--type", "int"])
        #expect(try storedRows(database) == ["count": .integer(7)])
    }

    static let usageErrors: [[String]] = [
        ["frobnicate"],
        ["--bogus"],
        ["read"],
        ["read", "a", "b"],
        ["write", "k"],
        ["write", "k", "v", "extra"],
        ["write", "k", "v", "--type", "nope"],
        ["write", "k", "--tyep", "int", "5"],
        ["list", "--jsn"],
        ["watch", "--bogus"],
        ["import"],
        ["delete"],
        ["delete", "k", "--all"],
        ["read-type"],
        ["rename", "a"],
        ["rename", "a", "a"],
        ["rename", "a", "b", "c"],
        ["export", "a", "b"],
        ["domains", "extra"],
        ["--db", "a.sqlite", "--name", "b", "list"],
        ["--name", "a/b", "list"],
        ["--db", "", "list"],
        ["write", "", "empty key"],
    ]

    @Test("unknown commands and options, missing or extra arguments: one line, non-zero exit", arguments: usageErrors)
    func usageError(_ arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        // Never the user's own files: a temporary --db, and a temporary $XDG_CONFIG_HOME.
        let isolated = arguments.contains("--db") || arguments.contains("--name") ? [] : ["--db", directory.path("x.sqlite")]
        try await Prefs.fail(isolated + arguments, environment: ["XDG_CONFIG_HOME": directory.path("config")])
    }

    @Test("an unknown command is named, with the list of commands")
    func unknownCommand() async throws {
        let directory = try TemporaryDirectory()
        let line = try await Prefs.fail(["--db", directory.path("x.sqlite"), "frobnicate", "k"], status: 64)
        #expect(line == "prefs: unknown command 'frobnicate' (commands: read, read-type, write, delete, rename, list, watch, serve, token, sync, relay, history, revert, export, import, domains, demo, declare, undeclare, describe, flags)")
    }

    /// Every command that opens a database, with what it needs.
    static func commands(_ database: String, _ importFile: String) -> [[String]] {
        [
            ["--db", database, "read", "k"],
            ["--db", database, "write", "k", "v"],
            ["--db", database, "delete", "k"],
            ["--db", database, "delete", "--all"],
            ["--db", database, "read-type", "k"],
            ["--db", database, "rename", "k", "k2"],
            ["--db", database, "list"],
            ["--db", database, "list", "--json"],
            ["--db", database, "export"],
            ["--db", database, "export", importFile + ".out"],
            ["--db", database, "import", importFile],
            ["--db", database, "watch"],
        ]
    }

    @Test("a database path that is a directory is refused by every command")
    func databaseIsDirectory() async throws {
        let directory = try TemporaryDirectory()
        let importFile = directory.path("import.json")
        try #"{"k": 1}"#.write(toFile: importFile, atomically: true, encoding: .utf8)
        for command in Self.commands(directory.url.path, importFile) {
            let line = try await Prefs.fail(command)
            #expect(line.contains("directory"), "\(command): \(line)")
        }
    }

    @Test("a file that is not a database is refused by every command and left byte for byte as it was")
    func notADatabase() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("notes.txt")
        let content = Data("These are my notes, not a database.\n".utf8) + Data(repeating: 0x41, count: 5000)
        try content.write(to: URL(fileURLWithPath: database))
        let importFile = directory.path("import.json")
        try #"{"k": 1}"#.write(toFile: importFile, atomically: true, encoding: .utf8)

        for command in Self.commands(database, importFile) {
            let line = try await Prefs.fail(command)
            #expect(line.contains("not a SQLite database"), "\(command): \(line)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == content)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["import.json", "notes.txt"])
    }

    @Test("a database with a newer schema is refused by every command and left untouched")
    func newerSchema() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "k", "v"])
        try await SQLite3.run(database, "PRAGMA user_version = 9999;")
        let content = try Data(contentsOf: URL(fileURLWithPath: database))
        let importFile = directory.path("import.json")
        try #"{"k": 1}"#.write(toFile: importFile, atomically: true, encoding: .utf8)

        for command in Self.commands(database, importFile) {
            let line = try await Prefs.fail(command)
            #expect(line.contains("9999"), "\(command): \(line)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == content)
        }
        #expect(try await SQLite3.run(database, "SELECT key || '=' || value FROM defaults;") == "k=v\n")
    }
}
#endif
