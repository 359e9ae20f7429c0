#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// TEXT whose bytes are not valid UTF-8 (only another client can write it) goes through
/// `prefs` unchanged, and a key that is not valid UTF-8 is never changed silently.
@Suite("TEXT that is not valid UTF-8", .offThePool, .requiresSQLiteShell)
struct InvalidUTF8Tests {
    @Test("export then import keeps TEXT 61 FF 62 byte for byte, as TEXT")
    func exportImportKeepsTheBytes() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "plain", "x"])
        try await SQLite3.run(database, "insert into defaults(key, value) values('k', cast(x'61FF62' as text))")

        let json = try await Prefs.succeed(["--db", database, "export"])
        #expect(json.contains(#""k": {"$textBytes": "Yf9i"}"#), "\(json)")
        let copy = directory.path("copy.sqlite")
        try await Prefs.succeed(["--db", copy, "import", "-"], input: json)
        let row = try await SQLite3.run(copy, "select typeof(value), hex(value) from defaults where key = 'k'")
        #expect(row == "text|61FF62\n")
    }

    @Test("read, list and watch show the invalid bytes escaped; read --json in the export form")
    func displaysEscaped() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "plain", "x"])
        let watcher = try await Watcher.start(["--db", database, "watch", "k"])
        try await SQLite3.run(database, "insert into defaults(key, value) values('k', cast(x'61FF62' as text))")
        #expect(await watcher.output.wait { $0.hasSuffix(#" k = a\x{FF}b (text)"#) } != nil, "\(watcher.output.all)")
        _ = try await watcher.stop()

        #expect(try await Prefs.succeed(["--db", database, "read", "k"]) == "a\\x{FF}b\n")
        #expect(try await Prefs.succeed(["--db", database, "read", "k", "--json"]) == "{\"$textBytes\": \"Yf9i\"}\n")
        #expect(try await Prefs.succeed(["--db", database, "read-type", "k"]) == "text\n")
        let list = try await Prefs.succeed(["--db", database, "list"])
        #expect(list.contains("text     a\\x{FF}b"), "\(list)")
    }

    @Test("delete --all removes a row whose key is not valid UTF-8")
    func deleteAllRemovesEveryRow() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "plain", "x"])
        try await SQLite3.run(database, "insert into defaults(key, value) values(cast(x'6BFF' as text), 1)")
        try await Prefs.succeed(["--db", database, "delete", "--all"])
        #expect(try await SQLite3.run(database, "select count(*) from defaults") == "0\n")
    }

    @Test("export refuses a key that is not valid UTF-8 with one line naming its bytes")
    func exportRefusesAnInvalidKey() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "plain", "x"])
        try await SQLite3.run(database, "insert into defaults(key, value) values(cast(x'6BFF' as text), 1)")
        let line = try await Prefs.fail(["--db", database, "export"])
        #expect(line.contains("6B FF"), "\(line)")
        let file = directory.path("backup.json")
        try await Prefs.fail(["--db", database, "export", file])
        #expect(!FileManager.default.fileExists(atPath: file))
        // list --json prints what export prints, so it refuses too; list shows the real bytes.
        #expect(try await Prefs.fail(["--db", database, "list", "--json"]).contains("6B FF"))
        let list = try await Prefs.succeed(["--db", database, "list"])
        #expect(list.contains("k\\x{FF}"), "\(list)")
        #expect(!list.contains("\u{FFFD}"), "\(list)")
    }
}
#endif
