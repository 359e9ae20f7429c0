import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

private let marker = DefaultsKey<String?>("marker")

/// The history stays bounded when only SQL clients write: the `sqlite3` shell, Python or a cron
/// job never prune, so a store that watches the file prunes after their commits, and a store
/// that opens it prunes what grew while none was open.
@Suite("History: pruning what other writers logged", .offThePool, .requiresSQLiteShell)
struct HistoryPruningByOthersTests {
    /// `count` autocommit writes of `doc` by the `sqlite3` shell, each its own entry, then the marker.
    private func sqlWrites(_ database: String, count: Int, then markerValue: String? = nil) async throws {
        var script = "BEGIN; INSERT INTO defaults(key, value) VALUES ('doc', 0) ON CONFLICT(key) DO NOTHING; COMMIT;\n"
        for value in 1...count {
            script += "UPDATE defaults SET value = \(value) WHERE key = 'doc';\n"
        }
        if let markerValue {
            script += "INSERT INTO defaults(key, value) VALUES ('marker', '\(markerValue)') ON CONFLICT(key) DO UPDATE SET value = excluded.value;\n"
        }
        try await sqlite3(database, script)
    }

    private func logSpan(_ database: String) async throws -> Int {
        Int(try await sqlite3(database, "SELECT count(*) FROM defaults_changes")) ?? -1
    }

    /// A store that only watches prunes the log after the shell's commits: at most the kept
    /// length plus its slack (1 at the shortest length) once the writes stop, and the newest
    /// changes are the ones kept.
    @Test func aStoreWatchingPrunesWhatSQLClientsLogged() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.setHistoryRetention(100)
        let seen = Collected<String?>()
        let token = store.observe(marker) { seen.append($0.newValue) }
        defer { token.cancel() }
        try await sqlWrites(directory.database, count: 600, then: "done")
        #expect(await seen.waitAsync { $0.contains("done") }, "the marker never arrived")
        _ = await waitUntilAwaiting(timeout: .seconds(60)) { ((try? await logSpan(directory.database)) ?? .max) <= 101 }
        let span = try await logSpan(directory.database)
        #expect(span <= 101, "the log holds \(span) entries; the file keeps 100")
        let history = try await store.history(keys: ["doc"], limit: 100)
        #expect(history.count >= 99)
        #expect(history.first?.value == .value(.integer(600)))
    }

    /// Nobody had the file open while the shell wrote: the next store to open it (not a
    /// read-only one) brings the log back to its length before `init` returns.
    @Test func openingPrunesWhatGrewWhileNoStoreWasOpen() async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).setHistoryRetention(100)
        try await sqlWrites(directory.database, count: 500)
        let grown = try await logSpan(directory.database)
        #expect(grown > 500)

        var readOnly = DefaultsStore.Configuration()
        readOnly.isReadOnly = true
        let reader = try DefaultsStore(path: directory.database, configuration: readOnly)
        await #expect(try reader.history(keys: ["doc"], limit: 1).first?.value == .value(.integer(500)))
        #expect(try await logSpan(directory.database) == grown, "a read-only store wrote to the file")
        try reader.close()

        let store = try DefaultsStore(path: directory.database)
        #expect(try await logSpan(directory.database) == 100)
        await #expect(try store.history(keys: ["doc"], limit: 1).first?.value == .value(.integer(500)))
    }

    /// A backup restored under a watching store (`sqlite3 .restore`) brings back its long log;
    /// the store hears the restore as another connection's commit and prunes it too.
    @Test func aRestoredLongLogIsPrunedByTheWatchingStore() async throws {
        let directory = try TemporaryDirectory()
        let backup = directory.path + "/backup.sqlite"
        try await DefaultsStore(path: directory.database).setHistoryRetention(100)
        try await sqlWrites(directory.database, count: 300)
        try await sqlite3(directory.database, ".backup '\(backup)'")
        let store = try DefaultsStore(path: directory.database)
        #expect(try await logSpan(directory.database) == 100)
        try await sqlite3(directory.database, ".restore '\(backup)'")
        _ = await waitUntilAwaiting(timeout: .seconds(60)) { ((try? await logSpan(directory.database)) ?? .max) <= 101 }
        let span = try await logSpan(directory.database)
        #expect(span <= 101, "the restored log holds \(span) entries; the file keeps 100")
        #expect(try await store.history(keys: ["doc"], limit: 1).first?.value == .value(.integer(300)))
    }

    /// A length outside the range a store accepts (0 or 1, written with SQL) means the default,
    /// 10,000: it never empties the log.
    @Test(arguments: [0, 1])
    func aLengthOutsideTheRangeKeepsTheDefault(length: Int) async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).set(1, for: DefaultsKey<Int>("seed", default: 0))
        try await sqlite3(directory.database, "DELETE FROM defaults_history_settings; INSERT INTO defaults_history_settings(kept) VALUES (\(length))")
        try await sqlWrites(directory.database, count: 200)
        let before = try await logSpan(directory.database)
        let store = try DefaultsStore(path: directory.database)
        #expect(try store.historyRetention == 10_000)
        #expect(try await logSpan(directory.database) == before)
    }

    /// Opening never queues behind another writer for the prune: with the write lock held by
    /// another store, a store opens without waiting out its busy timeout (two minutes here, so
    /// that a slow open on a loaded machine is not taken for a wait) and leaves the log as it
    /// is; it prunes once it sees that writer's commit.
    @Test func openingDoesNotWaitForTheLockToPrune() async throws {
        let directory = try TemporaryDirectory()
        // A writer that does not follow other connections' commits, so the shell's log stays long.
        var unwatched = DefaultsStore.Configuration()
        unwatched.externalChangeDetection = .off
        let writer = try DefaultsStore(path: directory.database, configuration: unwatched)
        try await writer.setHistoryRetention(100)
        try await sqlWrites(directory.database, count: 300)
        let grown = try await logSpan(directory.database)
        let started = ContinuousClock.now
        var opened: DefaultsStore?
        var patient = DefaultsStore.Configuration()
        patient.busyTimeout = .seconds(120)
        // The synchronous transaction (a closure of its own: in async code `transaction` is the async form).
        try { () throws in
            try writer.transaction { tx in
                try tx.set(1, for: DefaultsKey<Int>("held", default: 0))
                opened = try DefaultsStore(path: directory.database, configuration: patient)
            }
        }()
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(opened != nil)
        #expect(grown > 300)
        // The writer's commit is another connection's to the new store, which then prunes.
        _ = await waitUntilAwaiting(timeout: .seconds(60)) { ((try? await logSpan(directory.database)) ?? .max) <= 101 }
        let span = try await logSpan(directory.database)
        #expect(span <= 101, "the log holds \(span) entries; the file keeps 100")
        withExtendedLifetime(opened) {}
    }

    /// The span is read from the two ends of the log's rowid B-tree, never by scanning it.
    @Test func theLengthCheckReadsNoEntryOfTheLog() async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).set(1, for: DefaultsKey<Int>("seed", default: 0))
        let plan = try await sqlite3(directory.database, "EXPLAIN QUERY PLAN " + HistoryLog.spanSQL)
        // Each end is a SEARCH; only the one-row settings table is scanned.
        #expect(!plan.contains("SCAN defaults_changes"), "\(plan)")
        #expect(plan.components(separatedBy: "SEARCH defaults_changes").count == 3, "\(plan)")
        let together = try await sqlite3(directory.database, "EXPLAIN QUERY PLAN SELECT max(seq) - min(seq) FROM defaults_changes")
        #expect(together.contains("SCAN defaults_changes"), "the reason for two subqueries: \(together)")
    }

    /// A store closed right after a burst of another client's commits (while its monitor may be
    /// pruning) closes cleanly, and the file is whole: a prune is one transaction.
    @Test func closingWhilePruningLeavesAWholeFile() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.setHistoryRetention(100)
        try await sqlWrites(directory.database, count: 400)
        try store.close()
        #expect(try await sqlite3(directory.database, "PRAGMA integrity_check") == "ok")
        let newest = try await sqlite3(directory.database, "SELECT value FROM defaults_changes ORDER BY seq DESC LIMIT 1")
        #expect(newest == "400")
        let span = try await logSpan(directory.database)
        #expect(span >= 100)
    }
}
