#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("prefs read, write, delete", .offThePool)
struct ReadWriteTests {
    /// One `write --type` case: what is typed, what is stored, what `read` prints back.
    struct TypedCase: CustomTestStringConvertible, Sendable {
        let type: String?
        let input: String
        let stored: SQLiteValue
        let printed: String

        var testDescription: String { "--type \(type ?? "(none)") \(input)" }
    }

    static let typedCases: [TypedCase] = [
        TypedCase(type: nil, input: "Ada Lovelace", stored: .text("Ada Lovelace"), printed: "Ada Lovelace"),
        TypedCase(type: "string", input: "42", stored: .text("42"), printed: "42"),
        TypedCase(type: "string", input: "", stored: .text(""), printed: ""),
        TypedCase(type: "bool", input: "true", stored: .integer(1), printed: "1"),
        TypedCase(type: "bool", input: "No", stored: .integer(0), printed: "0"),
        TypedCase(type: "bool", input: "1", stored: .integer(1), printed: "1"),
        TypedCase(type: "int", input: "42", stored: .integer(42), printed: "42"),
        TypedCase(type: "int", input: "-5", stored: .integer(-5), printed: "-5"),
        TypedCase(type: "int", input: "9223372036854775807", stored: .integer(.max), printed: "9223372036854775807"),
        TypedCase(type: "double", input: "2", stored: .real(2), printed: "2.0"),
        TypedCase(type: "double", input: "0.1", stored: .real(0.1), printed: "0.1"),
        TypedCase(type: "double", input: "-1e-5", stored: .real(-1e-5), printed: "-1e-05"),
        TypedCase(type: "json", input: #"  {"a": [1, 2.0], "b": null}  "#, stored: .text(#"{"a": [1, 2.0], "b": null}"#),
                  printed: #"{"a": [1, 2.0], "b": null}"#),
        TypedCase(type: "json", input: #""just a string""#, stored: .text(#""just a string""#), printed: #""just a string""#),
        TypedCase(type: "data", input: "3q2+7w==", stored: .blob(Data([0xDE, 0xAD, 0xBE, 0xEF])), printed: "3q2+7w=="),
        TypedCase(type: "date", input: "2024-05-01T10:30:00Z", stored: .real(1_714_559_400), printed: "1714559400.0"),
        TypedCase(type: "date", input: "2024-05-01T10:30:00.25+02:00", stored: .real(1_714_552_200.25), printed: "1714552200.25"),
        TypedCase(type: "date", input: "2024-05-01", stored: .real(1_714_521_600), printed: "1714521600.0"),
        TypedCase(type: "url", input: "https://swift.org/server/?q=1", stored: .text("https://swift.org/server/?q=1"),
                  printed: "https://swift.org/server/?q=1"),
    ]

    @Test("write stores each --type as its native SQLite class, and read prints it back", arguments: typedCases)
    func writeStoresNativeValues(_ typed: TypedCase) async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let typeArguments = typed.type.map { ["--type", $0] } ?? []

        try await Prefs.succeed(["--db", database, "write", "key", typed.input] + typeArguments)
        #expect(try storedRows(database) == ["key": typed.stored])
        #expect(try await Prefs.succeed(["--db", database, "read", "key"]) == typed.printed + "\n")

        // What `read` printed goes back into `write` as the same stored value.
        let readBackType = typed.stored.storageClass == "real" ? ["--type", "double"] : typeArguments
        try await Prefs.succeed(["write", "copy", typed.printed, "--db", database] + readBackType)
        #expect(try storedRows(database)["copy"] == typed.stored)
    }

    @Test("write --type date now stores the current time")
    func writeDateNow() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let before = Date().timeIntervalSince1970
        try await Prefs.succeed(["--db", database, "write", "started", "now", "--type", "date"])
        let after = Date().timeIntervalSince1970
        guard case .real(let seconds)? = try storedRows(database)["started"] else {
            Issue.record("no REAL stored")
            return
        }
        #expect(seconds >= before - 0.001 && seconds <= after + 0.001)
    }

    @Test("read --json prints the export encoding, which names the storage class")
    func readJSON() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "real", "2", "--type", "double"])
        try await Prefs.succeed(["--db", database, "write", "int", "2", "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", "text", "2"])
        try await Prefs.succeed(["--db", database, "write", "blob", "AAE=", "--type", "data"])
        try await Prefs.succeed(["--db", database, "write", "list", "[1, 2]", "--type", "json"])
        #expect(try await Prefs.succeed(["--db", database, "read", "real", "--json"]) == "2.0\n")
        #expect(try await Prefs.succeed(["--db", database, "read", "int", "--json"]) == "2\n")
        #expect(try await Prefs.succeed(["--db", database, "read", "text", "--json"]) == "\"2\"\n")
        #expect(try await Prefs.succeed(["--db", database, "read", "blob", "--json"]) == "{\"$data\": \"AAE=\"}\n")
        #expect(try await Prefs.succeed(["--db", database, "read", "list", "--json"]) == "[1, 2]\n")
    }

    @Test("keys are any non-empty string: dots, @, spaces, Unicode")
    func unusualKeys() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        for key in ["app.window.frame", "user@example.com", "two words", "größe 📐", "-starts-with-dash"] {
            try await Prefs.succeed(["--db", database, "write", "--", key, "value of \(key)"])
            #expect(try await Prefs.succeed(["--db", database, "read", "--", key]) == "value of \(key)\n")
        }
    }

    @Test("read of a missing key exits 1 and names the key")
    func readMissingKey() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")

        // No database yet: the read creates none.
        let line = try await Prefs.fail(["--db", database, "read", "no.such.key"], status: 1)
        #expect(line.contains("'no.such.key'"))
        #expect(!FileManager.default.fileExists(atPath: database))

        try await Prefs.succeed(["--db", database, "write", "other", "x"])
        let again = try await Prefs.fail(["--db", database, "read", "no.such.key"], status: 1)
        #expect(again == "prefs: no value for key 'no.such.key'")
    }

    @Test("delete removes the key; deleting a missing key exits 1 and names it")
    func delete() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "a", "1"])
        try await Prefs.succeed(["--db", database, "write", "b", "2"])

        #expect(try await Prefs.succeed(["--db", database, "delete", "a"]) == "")
        #expect(try storedRows(database) == ["b": .text("2")])
        try await Prefs.fail(["--db", database, "read", "a"], status: 1)

        let line = try await Prefs.fail(["--db", database, "delete", "a"], status: 1)
        #expect(line.contains("'a'"))
        #expect(try storedRows(database) == ["b": .text("2")])
    }

    @Test("--db works before or after the command; --name uses $XDG_CONFIG_HOME/APP/defaults.sqlite")
    func databaseSelection() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "k", "before"])
        #expect(try await Prefs.succeed(["read", "k", "--db", database]) == "before\n")

        let config = directory.path("config")
        let environment = ["XDG_CONFIG_HOME": config]
        try await Prefs.succeed(["--name", "myapp", "write", "k", "named"], environment: environment)
        #expect(try storedRows(config + "/myapp/defaults.sqlite") == ["k": .text("named")])

        // No option at all: the standard database of the app named "prefs", which a write
        // names on standard error and a read does not.
        let write = try await Prefs.run(["write", "k", "default"], environment: environment)
        #expect(write.status == 0 && write.stdout == "")
        #expect(write.stderr == "prefs: using \(config)/prefs/defaults.sqlite\n")
        #expect(try storedRows(config + "/prefs/defaults.sqlite") == ["k": .text("default")])
        #expect(try await Prefs.succeed(["read", "k"], environment: environment) == "default\n")
    }

    @Test("help and usage go to standard output with status 0")
    func help() async throws {
        let help = try await Prefs.succeed(["--help"])
        for command in ["read", "read-type", "write", "delete", "rename", "list", "watch", "export", "import", "domains", "demo"] {
            #expect(help.contains(command), "help does not mention \(command)")
        }
        #expect(!help.contains("_write-loop"))
        let writeHelp = try await Prefs.succeed(["write", "--help"])
        #expect(writeHelp.contains("--type <type>"))
        for type in ["bool", "int", "double", "string", "json", "data", "date", "url"] {
            #expect(writeHelp.contains(type), "write --help does not mention \(type)")
        }
    }
}
#endif
