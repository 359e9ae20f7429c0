import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// A backup restored over a file whose last writer crashed: the crashed writer's `-wal` stays
/// beside the restored file, and replaying it would lay newer pages over older ones. Each test
/// leaves an orphaned `-wal` the way a crash does — a `sqlite3` shell that kills itself before
/// it can close — then moves the backup in with `rename(2)`, as `mv` does.
@Suite("Restored files", .offThePool, .requiresSQLiteShell)
struct RestoredFileTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    private func key(_ name: String) -> DefaultsKey<String?> { DefaultsKey<String?>(name) }

    /// Writes `count` keys `prefix.N` in one transaction and closes (the file then holds all).
    private func write(_ path: String, prefix: String, count: Int, length: Int = 100) throws {
        let store = try DefaultsStore(path: path, configuration: quietConfiguration())
        try store.transaction { tx in
            for index in 0..<count { tx[key("\(prefix).\(index)")] = "\(prefix) \(index) " + String(repeating: "x", count: length) }
        }
        try store.close()
    }

    /// A `sqlite3` shell that commits `sql` and then dies with SIGKILL, holding the file: its
    /// `-wal` (with the commit's frames) and `-shm` stay, as after any crash.
    private func commitAndCrash(_ path: String, _ sql: String) async throws {
        _ = try? await sqlite3(path, "PRAGMA wal_autocheckpoint = 0;\n" + sql + "\n.system kill -9 $PPID")
        try #require((fileBytes(path + "-wal")?.count ?? 0) > 32, "the crashed shell left no -wal")
    }

    private func setAsideFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("-wal.set-aside-") }
    }

    @Test("a backup moved over a crashed file opens as the backup, with the stale -wal kept aside")
    func backupMovedOverCrashedFile() async throws {
        let path = directory.database
        let backup = directory.path + "/backup.sqlite"
        try write(path, prefix: "a", count: 50)
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        try write(path, prefix: "b", count: 300)
        try await commitAndCrash(path, "INSERT INTO defaults(key, value) VALUES ('k', 'changed');")
        let staleWal = try #require(fileBytes(path + "-wal"))
        #expect(rename(backup, path) == 0)

        let store = try DefaultsStore(path: path, configuration: quietConfiguration())
        await #expect(try store.keys().count == 50, "the backup held 50 keys")
        #expect(store[key("k")] == nil, "a value the backup never had was read")
        #expect(store[key("b.0")] == nil)
        #expect(store.lastReportedError?.code == .walSetAside, "\(String(describing: store.lastReportedError))")
        try await store.set("after", for: key("after"))
        try store.close()

        #expect(try await sqlite3(path, "PRAGMA integrity_check") == "ok")
        let kept = try setAsideFiles()
        try #require(kept.count == 1, "\(kept)")
        #expect(fileBytes(directory.path + "/" + kept[0]) == staleWal, "the stale -wal was not kept byte for byte")
    }

    /// Opened through a symbolic link: the stale log beside the real file (where SQLite keeps
    /// it) is the one checked and set aside, and it stays beside the real file.
    @Test("a restore behind a symbolic link sets the stale -wal aside beside the real file")
    func restoreBehindALink() async throws {
        let real = directory.path + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        let path = real + "/defaults.sqlite"
        let link = directory.path + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        // A link to a database not made yet is refused, with the reason (nothing is created
        // through a dangling link).
        do {
            _ = try DefaultsStore(path: link, configuration: quietConfiguration())
            Issue.record("opened a store through a dangling link")
        } catch let error as DefaultsError {
            #expect(error.code == .cannotOpen && error.message.contains("does not exist"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let backup = directory.path + "/backup.sqlite"
        try write(path, prefix: "a", count: 50)
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        try write(link, prefix: "b", count: 300)
        try await commitAndCrash(path, "INSERT INTO defaults(key, value) VALUES ('k', 'changed');")
        #expect(rename(backup, path) == 0)

        let store = try DefaultsStore(path: link, configuration: quietConfiguration())
        await #expect(try store.keys().count == 50)
        #expect(store.lastReportedError?.code == .walSetAside)
        try store.close()
        let kept = try FileManager.default.contentsOfDirectory(atPath: real).filter { $0.contains("-wal.set-aside-") }
        #expect(kept.count == 1, "\(kept)")
        #expect(try await sqlite3(path, "PRAGMA integrity_check") == "ok")
    }

    /// A larger log (pages of several tables) over an older backup: with it replayed,
    /// `integrity_check` fails; set aside, the file is sound.
    @Test("a large stale -wal over a backup is set aside; the file stays sound")
    func largeStaleWal() async throws {
        let path = directory.database
        let backup = directory.path + "/backup.sqlite"
        try write(path, prefix: "a", count: 200, length: 300)
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        try write(path, prefix: "b", count: 200, length: 300)
        let updates = (0..<200).map { "UPDATE defaults SET value = 'changed \($0)' WHERE key = 'a.\($0)';" }.joined(separator: "\n")
        try await commitAndCrash(path, "BEGIN;\n" + updates + "\nDELETE FROM defaults WHERE key LIKE 'b.1%';\nCOMMIT;")
        #expect(rename(backup, path) == 0)

        let store = try DefaultsStore(path: path, configuration: quietConfiguration())
        await #expect(try store.keys().count == 200)
        #expect(store[key("a.7")]?.hasPrefix("a 7 ") == true, "\(String(describing: store[key("a.7")]))")
        #expect(store.lastReportedError?.code == .walSetAside)
        try store.close()
        #expect(try await sqlite3(path, "PRAGMA integrity_check") == "ok")
        #expect(try setAsideFiles().count == 1)
    }

    /// The control: the same crash without a restore. The log is the file's own, so its commit
    /// is replayed — an acknowledged write is never set aside.
    @Test("a crashed writer's own -wal is replayed, not set aside")
    func ownWalIsReplayed() async throws {
        let path = directory.database
        try write(path, prefix: "a", count: 50)
        try write(path, prefix: "b", count: 300)
        try await commitAndCrash(path, "INSERT INTO defaults(key, value) VALUES ('k', 'changed');")

        let store = try DefaultsStore(path: path, configuration: quietConfiguration())
        #expect(store[key("k")] == "changed")
        await #expect(try store.keys().count == 351)
        #expect(store.lastReportedError == nil, "\(String(describing: store.lastReportedError))")
        try store.close()
        #expect(try setAsideFiles().isEmpty)
    }

    /// Crash recovery of a file whose log grew it (page 1 in the log) and of one whose log
    /// only changed pages in place (no page 1): both replayed.
    @Test("own logs that grew the file or changed it in place are both replayed")
    func ownWalShapes() async throws {
        let path = directory.database
        try write(path, prefix: "a", count: 20)
        // In place: one short value updated, the file keeps its size.
        try await commitAndCrash(path, "UPDATE defaults SET value = 'in place' WHERE key = 'a.3';")
        do {
            let store = try DefaultsStore(path: path, configuration: quietConfiguration())
            #expect(store[key("a.3")] == "in place")
            #expect(store.lastReportedError == nil)
        }
        // Growing: 300 new long values.
        let inserts = (0..<300).map { "INSERT INTO defaults(key, value) VALUES ('g.\($0)', '\(String(repeating: "g", count: 200))');" }
        try await commitAndCrash(path, "BEGIN;\n" + inserts.joined(separator: "\n") + "\nCOMMIT;")
        let store = try DefaultsStore(path: path, configuration: quietConfiguration())
        await #expect(try store.keys().count == 320)
        #expect(store.lastReportedError == nil)
        #expect(try setAsideFiles().isEmpty)
    }

    /// A log that another connection holds is live: never moved, even when the store refuses it.
    @Test("a -wal another connection holds is never moved")
    func liveWalIsNotMoved() throws {
        let path = directory.database
        try write(path, prefix: "a", count: 10)
        let holder = try DefaultsStore(path: path, configuration: quietConfiguration())
        try holder.set("held", for: key("h"))
        let store = try DefaultsStore(path: path, configuration: quietConfiguration())
        #expect(store[key("h")] == "held")
        #expect(store.lastReportedError == nil)
        #expect(try setAsideFiles().isEmpty)
        withExtendedLifetime(holder) {}
    }
}
