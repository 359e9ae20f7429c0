#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("prefs history and prefs revert", .offThePool)
struct HistoryCommandTests {
    /// `prefs history --json` parsed: one object per change, newest first.
    private func history(_ database: String, _ arguments: [String] = []) async throws -> [[String: Any]] {
        let output = try await Prefs.succeed(["--db", database, "history", "--json"] + arguments)
        let parsed = try JSONSerialization.jsonObject(with: Data(output.utf8))
        return try #require(parsed as? [[String: Any]], "not an array of objects: \(output)")
    }

    @Test("history --json: the contract's shape, newest first, this library's writer in full")
    func jsonShape() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "timeout", "30", "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", "timeout", "45", "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", "name", "Ada"])
        let entries = try await history(database)
        #expect(entries.count == 3)
        #expect(entries.map { $0["key"] as? String } == ["name", "timeout", "timeout"])
        let newestTimeout = entries[1]
        #expect(Set(newestTimeout.keys) == ["seq", "key", "value", "time", "writer", "actor"])
        #expect((newestTimeout["value"] as? NSNumber)?.int64Value == 45)
        let seqs = entries.compactMap { ($0["seq"] as? NSNumber)?.int64Value }
        #expect(seqs.count == 3 && seqs == seqs.sorted(by: >))
        let time = try #require(newestTimeout["time"] as? String)
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
        let writer = try #require(newestTimeout["writer"] as? [String: Any])
        #expect(writer["kind"] as? String == "library")
        #expect(writer["program"] as? String == "prefs")
        #expect((writer["pid"] as? NSNumber).map { $0.int32Value > 0 } == true)
        #expect(writer["user"] is String && writer["host"] is String)
        #expect(try await history(database, ["--limit", "1", "timeout"]).count == 1)
        #expect(try await history(database, ["name"]).map { $0["value"] as? String } == ["Ada"])
    }

    @Test("a declared key's entries name its type, in JSON and in the text; an undeclared key's do not")
    func declaredTypes() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "declare", "timeout", "--type", "int", "--default", "30"])
        try await Prefs.succeed(["--db", database, "write", "timeout", "45"])
        try await Prefs.succeed(["--db", database, "write", "name", "Ada"])
        let entries = try await history(database)
        #expect(entries.map { $0["key"] as? String } == ["name", "timeout"])
        #expect(entries[1]["type"] as? String == "int")
        #expect(Set(entries[0].keys) == ["seq", "key", "value", "time", "writer", "actor"], "an undeclared key has no type")
        let text = try await Prefs.succeed(["--db", database, "history"])
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last?.contains(" timeout [int] = 45 (integer) by library prefs ") == true, "\(text)")
        #expect(lines.first?.contains(" name = Ada (text) by ") == true, "\(text)")
    }

    @Test("a sqlite3 shell's change is recorded as sql, with no other writer fields", .requiresSQLiteShell)
    func sqlWriter() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "timeout", "30", "--type", "int"])
        try await SQLite3.run(database, "UPDATE defaults SET value = 60 WHERE key = 'timeout';")
        let newest = try #require(try await history(database).first)
        #expect((newest["value"] as? NSNumber)?.int64Value == 60)
        let writer = try #require(newest["writer"] as? [String: Any])
        #expect(writer.count == 1 && writer["kind"] as? String == "sql", "\(writer)")
    }

    @Test("rename records both keys; delete --all every key; import each key it sets")
    func renameDeleteAllImport() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "old", "1", "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", "other", "x"])
        try await Prefs.succeed(["--db", database, "rename", "old", "new"])
        let renamed = try await history(database, ["--limit", "2"])
        #expect(Set(renamed.compactMap { $0["key"] as? String }) == ["old", "new"])
        #expect(renamed.first { $0["key"] as? String == "old" }?["value"] is NSNull)
        #expect((renamed.first { $0["key"] as? String == "new" }?["value"] as? NSNumber)?.int64Value == 1)

        try await Prefs.succeed(["--db", database, "delete", "--all"])
        let deleted = try await history(database, ["--limit", "2"])
        #expect(Set(deleted.compactMap { $0["key"] as? String }) == ["new", "other"])
        #expect(deleted.allSatisfy { $0["value"] is NSNull })

        #expect(try await Prefs.succeed(["--db", database, "import", "-"], input: #"{"a": 1, "b": "two"}"#) == "imported 2 keys\n")
        let imported = try await history(database, ["--limit", "2"])
        #expect(Set(imported.compactMap { $0["key"] as? String }) == ["a", "b"])
    }

    @Test("history prints one human line per change")
    func humanLines() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "timeout", "30", "--type", "int"])
        try await Prefs.succeed(["--db", database, "delete", "timeout"])
        let lines = try await Prefs.succeed(["--db", database, "history"]).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].contains(" timeout removed by library prefs pid "), "\(lines[0])")
        #expect(lines[1].contains(" timeout = 30 (integer) by library prefs pid "), "\(lines[1])")
        #expect(try await Prefs.succeed(["--db", directory.path("missing.sqlite"), "history", "--json"]) == "[]\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing.sqlite")))
    }

    @Test("revert writes back the value before the newest change, or change SEQ's, as a new change")
    func revert() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        for value in ["30", "45", "60"] { try await Prefs.succeed(["--db", database, "write", "timeout", value, "--type", "int"]) }
        try await Prefs.succeed(["--db", database, "revert", "timeout"])
        #expect(try await Prefs.succeed(["--db", database, "read", "timeout"]) == "45\n")
        let entries = try await history(database, ["timeout"])
        #expect(entries.compactMap { ($0["value"] as? NSNumber)?.int64Value } == [45, 60, 45, 30])
        let first = try #require((entries.last?["seq"] as? NSNumber)?.int64Value)
        try await Prefs.succeed(["--db", database, "revert", "timeout", "--to", String(first)])
        #expect(try await Prefs.succeed(["--db", database, "read", "timeout"]) == "30\n")

        try await Prefs.succeed(["--db", database, "delete", "timeout"])
        let removal = try #require((try await history(database, ["timeout"]).first?["seq"] as? NSNumber)?.int64Value)
        try await Prefs.succeed(["--db", database, "revert", "timeout"])
        #expect(try await Prefs.succeed(["--db", database, "read", "timeout"]) == "30\n")
        try await Prefs.succeed(["--db", database, "revert", "timeout", "--to", String(removal)])
        try await Prefs.fail(["--db", database, "read", "timeout"], status: 1)
    }

    @Test("revert exits 1 with one line when there is nothing to go back to, or SEQ is another key's")
    func revertRefusals() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "timeout", "30", "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", "name", "Ada"])
        let nothing = try await Prefs.fail(["--db", database, "revert", "timeout"], status: 1)
        #expect(nothing.contains("nothing to go back to"), "\(nothing)")
        let nameSeq = try #require((try await history(database, ["name"]).first?["seq"] as? NSNumber)?.int64Value)
        let other = try await Prefs.fail(["--db", database, "revert", "timeout", "--to", String(nameSeq)], status: 1)
        #expect(other.contains("is not a change of key"), "\(other)")
        try await Prefs.fail(["--db", database, "revert", "timeout", "--to", "999999"], status: 1)
        try await Prefs.fail(["--db", database, "revert", "never"], status: 1)
        #expect(try await Prefs.succeed(["--db", database, "read", "timeout"]) == "30\n")
        #expect(try await history(database).count == 2, "a refused revert writes nothing")
    }
}
#endif
