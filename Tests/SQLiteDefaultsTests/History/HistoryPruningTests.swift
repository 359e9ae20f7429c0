import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

private let first = DefaultsKey<Int>("first", default: 0)
private let second = DefaultsKey<Int>("second", default: 0)

/// Pruning keeps at least the length the file asks for, counts superseded entries out, and
/// never reads the entries it keeps (migration 0009).
@Suite("History: pruning", .offThePool, .requiresSQLiteShell)
struct HistoryPruningTests {
    /// A store on a new file that keeps its newest 100 changes (the shortest length).
    private func storeKeeping100() throws -> (TemporaryDirectory, DefaultsStore) {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try store.setHistoryRetention(100)
        return (directory, store)
    }

    /// Every transaction writes `first` three times and `second` once: two of every four entries
    /// are superseded. A prune that counted rows instead of changes would keep about half.
    @Test func supersededEntriesAreNotCountedAsChanges() async throws {
        let (directory, store) = try storeKeeping100()
        for round in 1...1_500 {
            try await store.transaction { tx in
                try tx.set(round, for: first)
                try tx.set(round + 1, for: first)
                try tx.set(round + 2, for: first)
                try tx.set(round, for: second)
            }
        }
        let rows = Int(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes")) ?? -1
        let superseded = Int(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes WHERE superseded IS NOT NULL")) ?? -1
        #expect(rows < 6_000, "pruned: \(rows) rows of 6,000 written")
        #expect(rows - superseded >= 100, "\(rows) rows, \(superseded) superseded")
        let kept = try await store.history(keys: nil, limit: 100_000)
        #expect(kept.count >= 100)
        #expect(kept.first?.key == "second")
        #expect(kept.first?.value == .value(.integer(1_500)))
        // Newest first, and what is kept is a run of the newest: no change missing in it.
        let ofFirst = try await store.history(for: first, limit: 100_000).compactMap(\.value.written)
        #expect(ofFirst.first == 1_502)
        #expect(zip(ofFirst, ofFirst.dropFirst()).allSatisfy { newer, older in newer == older + 1 })
    }

    /// A transaction that writes one key thousands of times leaves one change and thousands of
    /// superseded entries, all newer than the last prune: the window reaches back past them.
    @Test func aLongRunOfSupersededEntriesWidensTheWindow() throws {
        let (directory, store) = try storeKeeping100()
        defer { withExtendedLifetime(directory) {} }  // the file lives as long as the store
        for value in 1...150 { try store.set(value, for: second) }
        try store.transaction { tx in
            for value in 1...2_500 { try tx.set(value, for: first) }
        }
        // The next commits cross a multiple of 1,000 entries and prune.
        for value in 151...160 { try store.set(value, for: second) }
        let kept = try store.history(keys: nil, limit: 100_000)
        #expect(kept.count >= 100)
        #expect(try store.history(for: first).map(\.value.written) == [2_500])
        #expect(try store.history(for: second, limit: 200).count >= 99)
    }

    /// The length kept is the newest changes whatever their number: a file whose entries start
    /// far from 1 (pruned many times over) prunes to the same length.
    @Test func theWindowFollowsTheNewestEntry() async throws {
        let (directory, store) = try storeKeeping100()
        for value in 1...5_000 { try await store.set(value, for: first) }
        let oldest = Int(try await sqlite3(directory.database, "SELECT min(seq) FROM defaults_changes")) ?? -1
        let newest = Int(try await sqlite3(directory.database, "SELECT max(seq) FROM defaults_changes")) ?? -1
        #expect(newest - oldest + 1 >= 100 && newest - oldest + 1 <= 1_100, "\(oldest)...\(newest)")
        await #expect(try store.history(for: first, limit: 100).first?.value == .value(5_000))
    }

    /// The prune's count reads the table of superseded entries, not the log: its cost does not
    /// grow with the length kept.
    @Test func thePruneReadsNoEntryOfTheLog() async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).set(1, for: first)
        let plan = try await queryPlan(directory.database, HistoryLog.supersededSinceSQL.replacingOccurrences(of: "?1", with: "5"))
        #expect(plan.contains("SEARCH defaults_changes_superseded USING INTEGER PRIMARY KEY (rowid>?)"), "\(plan)")
        let newest = try await queryPlan(directory.database, "SELECT max(seq) FROM defaults_changes")
        #expect(newest.contains("SEARCH defaults_changes") && !newest.contains("SCAN"), "\(newest)")
        let delete = try await queryPlan(directory.database, "DELETE FROM defaults_changes WHERE seq < 5")
        #expect(delete.contains("SEARCH defaults_changes USING INTEGER PRIMARY KEY (rowid<?)"), "\(delete)")
    }

    /// Marking entries superseded (the library's own fold, or anyone's UPDATE) records them;
    /// logging a change does not; a prune forgets the ones it deletes.
    @Test func theTableOfSupersededEntriesFollowsTheLog() async throws {
        let (directory, store) = try storeKeeping100()
        for value in 1...20 { try await store.set(value, for: first) }
        try await store.transaction { tx in
            try tx.set(1, for: second)
            try tx.set(2, for: second)
        }
        let marked = try await sqlite3(directory.database, "SELECT group_concat(seq) FROM defaults_changes WHERE superseded IS NOT NULL")
        #expect(try await sqlite3(directory.database, "SELECT group_concat(seq) FROM defaults_changes_superseded") == marked)
        #expect(marked == "21")
        // A mark made by another client with plain SQL is listed too.
        try await sqlite3(directory.database, "UPDATE defaults_changes SET superseded = 1 WHERE seq = 5")
        #expect(try await sqlite3(directory.database, "SELECT group_concat(seq) FROM defaults_changes_superseded ORDER BY seq") == "5,21")
        for value in 21...1_200 { try await store.set(value, for: first) }
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes_superseded") == "0")
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes WHERE seq <= 21") == "0")
    }

    /// A file from schema 8 with superseded entries brings them into the table when migrated.
    @Test func aSchema8FilesSupersededEntriesAreCountedAfterTheMigration() async throws {
        let directory = try TemporaryDirectory()
        try await sqlite3(directory.database, Migration.embedded.filter { $0.version <= 8 }.map(\.sql).joined(separator: "\n") + """

            PRAGMA user_version = 8;
            INSERT INTO defaults(key, value) VALUES ('first', 1);
            UPDATE defaults SET value = 2 WHERE key = 'first';
            UPDATE defaults SET value = 3 WHERE key = 'first';
            UPDATE defaults_changes SET superseded = 1 WHERE seq = 2;
            """)
        let store = try DefaultsStore(path: directory.database)
        await #expect(try store.history(for: first).map(\.value.written) == [3, 1])
        #expect(try await sqlite3(directory.database, "SELECT group_concat(seq) FROM defaults_changes_superseded") == "2")
    }

    /// A backup from before migration 0009 restored under an open store (`sqlite3 .restore`)
    /// brings back a log with no list of superseded entries: the store goes on writing to it,
    /// and its prunes still keep the file bounded, counting the superseded entries in the log.
    @Test func aRestoredSchema8FileIsStillPruned() async throws {
        let directory = try TemporaryDirectory()
        let backup = directory.path + "/backup.sqlite"
        try await sqlite3(directory.database, Migration.embedded.filter { $0.version <= 8 }.map(\.sql).joined(separator: "\n") + """

            PRAGMA user_version = 8;
            INSERT INTO defaults(key, value) VALUES ('first', 1);
            """)
        try await sqlite3(directory.database, ".backup '\(backup)'")
        let store = try DefaultsStore(path: directory.database)
        try await store.set(2, for: first)
        try await sqlite3(directory.database, ".restore '\(backup)'")
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "8")
        try await store.setHistoryRetention(100)
        for round in 1...1_000 {
            try await store.transaction { tx in
                try tx.set(round * 2, for: second)
                try tx.set(round * 2 + 1, for: second)
            }
        }
        let rows = Int(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes")) ?? -1
        let superseded = Int(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes WHERE superseded IS NOT NULL")) ?? -1
        #expect(rows <= 1_300, "pruned: \(rows) rows of 2,000 written")
        #expect(rows - superseded >= 100, "\(rows) rows, \(superseded) superseded")
        await #expect(try store.history(for: second, limit: 1_000).first?.value == .value(2_001))
    }
}
