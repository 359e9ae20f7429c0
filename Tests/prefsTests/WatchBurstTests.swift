#if Prefs
import Foundation
import SQLiteDefaults
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
import TestScheduling
#endif

/// A live `prefs watch` (no --since) never stops for the history: a burst larger than the
/// history keeps is announced and skipped; `--since` keeps its promise, every change or a
/// named error (issue 46: repro 46 and 51).
@Suite("watch across a burst the history cannot keep", .offThePool, .requiresSQLiteShell)
struct WatchBurstTests {
    /// Keeps 100 changes, then commits `count` new keys in one transaction.
    private static func burst(_ database: String, count: Int) async throws {
        try await SQLite3.run(database, """
            DELETE FROM defaults_history_settings; INSERT INTO defaults_history_settings(kept) VALUES (100);
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO defaults(key, value) SELECT 'bulk.' || i, i FROM n;
            COMMIT;
            """)
    }

    @Test("a live watch behind a pruned burst says what it could not show, what to do, and goes on from the present")
    func liveWatchKeepsFollowing() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "seed", "1"])
        let watcher = try await Watcher.start(["--db", database, "watch", "--json"])
        // Stopped, it cannot read the burst before a store prunes it: the gap is certain.
        watcher.child.send(SIGSTOP)
        try await Self.burst(database, count: 2_000)
        try await Prefs.succeed(["--db", database, "write", "pruner", "1"])   // opening prunes what is overdue
        #expect(try await SQLite3.run(database, "SELECT count(*) FROM defaults_changes") != "2003\n")
        watcher.child.send(SIGCONT)
        let notice = await watcher.errors.wait(timeout: .seconds(60)) { $0.hasPrefix("prefs: ") }
        #expect(notice?.contains("cannot be shown one by one") == true, "\(watcher.errors.all)")
        #expect(notice?.contains("prefs export") == true, "\(watcher.errors.all)")
        try await Prefs.succeed(["--db", database, "write", "after", "1"])
        #expect(await watcher.output.wait(timeout: .seconds(60)) { $0.contains(#""key":"after""#) } != nil, "\(watcher.output.all)")
        let outcome = try await watcher.stop()
        #expect(outcome.succeeded, "status \(outcome.status)")
    }

    @Test("--since behind the same burst still ends with status 1 and one line naming the oldest kept")
    func sinceKeepsItsPromise() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "seed", "1"])
        try await Self.burst(database, count: 2_000)
        try await Prefs.succeed(["--db", database, "write", "pruner", "1"])
        let oldest = try await SQLite3.run(database, "SELECT min(seq) FROM defaults_changes").trimmingCharacters(in: .whitespacesAndNewlines)
        let line = try await Prefs.fail(["--db", database, "watch", "--since", "1"], status: 1)
        #expect(line.contains("the oldest change kept is \(oldest)"), "\(line)")
    }

    @Test("--since newer than the newest change names the oldest change kept, and where to start again")
    func sinceInTheFutureNamesTheOldest() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        for key in ["a", "b", "c"] { try await Prefs.succeed(["--db", database, "write", key, "1"]) }
        let oldest = try await SQLite3.run(database, "SELECT min(seq) FROM defaults_changes").trimmingCharacters(in: .whitespacesAndNewlines)
        let line = try await Prefs.fail(["--db", database, "watch", "--since", "999"], status: 1)
        #expect(line.contains("the oldest change kept is \(oldest)"), "\(line)")
        #expect(line.contains("--since \((Int(oldest) ?? 1) - 1)"), "\(line)")
    }
}
#endif
