#if Prefs
import ChildProcesses
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// `prefs` on files that are not simply its own: a backup restored with `mv` over a file whose
/// watcher was killed, another program's database, a file others can write.
@Suite("Restores and foreign files", .offThePool, .requiresSQLiteShell)
struct RestoreAndForeignFileTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A restore as a user does it, command for command: import, back up, import more, a watcher
    /// holds the file, a write, the watcher is killed, the backup is moved back.
    @Test("a backup moved over a file whose watcher was killed reads as the backup; its stale -wal is kept aside")
    func restoreWithMove() async throws {
        let db = directory.path("cr.sqlite")
        let backup = directory.path("backup.sqlite")
        let a = directory.path("a.json")
        let b = directory.path("b.json")
        let small = (0..<50).map { "\"a\($0)\": \($0)" }.joined(separator: ", ")
        let large = (0..<300).map { "\"b\($0)\": \"\(String(repeating: "x", count: 100))\($0)\"" }.joined(separator: ", ")
        try Data("{\(small)}".utf8).write(to: URL(fileURLWithPath: a))
        try Data("{\(large)}".utf8).write(to: URL(fileURLWithPath: b))

        try await Prefs.succeed(["--db", db, "import", a])
        try FileManager.default.copyItem(atPath: db, toPath: backup)
        try await Prefs.succeed(["--db", db, "import", b])
        let watcher = try await Watcher.start(["--db", db, "watch"])
        try await Prefs.succeed(["--db", db, "write", "k", "changed"])
        _ = await watcher.output.wait { $0.contains(" k = ") }
        watcher.child.send(SIGKILL)
        _ = await watcher.child.wait(timeout: .seconds(10))
        try #require((try? Data(contentsOf: URL(fileURLWithPath: db + "-wal")))?.count ?? 0 > 32, "the killed watcher left no -wal")
        #expect(rename(backup, db) == 0)

        let listed = try await Prefs.run(["--db", db, "list", "--json"])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stderr.hasPrefix("prefs: warning: the write-ahead log beside"), "\(listed.stderr)")
        #expect(listed.stderr.contains("set-aside"), "\(listed.stderr)")
        let object = try jsonObject(listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(object.count == 50, "the backup held 50 keys: \(object.count)")
        #expect(object["k"] == nil)
        #expect(try await SQLite3.run(db, "PRAGMA integrity_check").trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("cr.sqlite-wal.set-aside-") }
        #expect(kept.count == 1, "\(kept)")
        // Later commands see nothing more to set aside.
        #expect(try await Prefs.succeed(["--db", db, "read", "a7"]) == "7\n")
    }

    @Test("every command refuses another program's database with one line and leaves it byte for byte",
          arguments: [["read", "x"], ["list"], ["export"], ["read-type", "x"], ["write", "x", "1"], ["delete", "x"],
                      ["delete", "--all"], ["rename", "x", "y"], ["import", "IMPORT"]])
    func foreignDatabase(arguments: [String]) async throws {
        let db = directory.path("app.db")
        try await SQLite3.run(db, "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ada');")
        let importFile = directory.path("in.json")
        try Data(#"{"x": 1}"#.utf8).write(to: URL(fileURLWithPath: importFile))
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let line = try await Prefs.fail(["--db", db] + arguments.map { $0 == "IMPORT" ? importFile : $0 })
        #expect(line.contains("belongs to another program"), "\(line)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: db + "-shm"))
    }

    @Test("read-only commands leave an older file's schema and journal mode as they were")
    func readOnlyCommandsMigrateNothing() async throws {
        let db = directory.path("old.sqlite")
        try await SQLite3.run(db, "CREATE TABLE defaults(key TEXT NOT NULL UNIQUE, value); INSERT INTO defaults VALUES ('name', 'Old'); PRAGMA user_version = 1;")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(try await Prefs.succeed(["--db", db, "read", "name"]) == "Old\n")
        try await Prefs.succeed(["--db", db, "list"])
        try await Prefs.succeed(["--db", db, "export"])
        #expect(try await Prefs.succeed(["--db", db, "read-type", "name"]) == "text\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try await SQLite3.run(db, "PRAGMA journal_mode").trimmingCharacters(in: .whitespacesAndNewlines) == "delete")
    }

    @Test("a database others can write is refused by name and mode")
    func worldWritable() async throws {
        let db = directory.path("shared.sqlite")
        try await Prefs.succeed(["--db", db, "write", "secret", "s3cr3t"])
        #expect(chmod(db, 0o666) == 0)
        let line = try await Prefs.fail(["--db", db, "read", "secret"])
        #expect(line.contains(db) && line.contains("0666"), "\(line)")
        try await Prefs.fail(["--db", db, "write", "secret", "other"])
        #expect(chmod(db, 0o600) == 0)
        #expect(try await Prefs.succeed(["--db", db, "read", "secret"]) == "s3cr3t\n")
    }
}
#endif
