import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

/// A file that goes back to an earlier state under an open store (`sqlite3 .restore` of a
/// backup) before the store has looked past its own newest commit: the log still holds the
/// entry the store's position names, with its key, so only the store's own entries, now gone
/// or written over, tell that the file went back. Driven on one connection, in the order the
/// race takes: own commit, restore, then the look.
@Suite("The change log: a file restored under the store before it passed its own commit", .offThePool, .requiresSQLiteShell)
struct ChangeLogRewindTests {
    /// A new store file at `path`, a connection to it, and a log positioned after the entry of
    /// `timeout = 10`; then this connection's own commit of `timeout = 20`, noted as the store
    /// notes it. Returns the own entry's sequence.
    private func ownCommitAfterPosition(_ path: String) throws -> (Database, ChangeLog, Int64) {
        try DefaultsStore(path: path).close()
        let database = try Database(path: path, create: false)
        try database.execute("INSERT INTO defaults VALUES ('timeout', 10)")
        let log = try ChangeLog(database)
        try database.execute("UPDATE defaults SET value = 20 WHERE key = 'timeout'")
        let own = try database.integer("SELECT max(seq) FROM defaults_changes")
        log.noteOwnCommit(own...own, lastKey: "timeout")
        return (database, log, own)
    }

    private func scan(_ log: ChangeLog, _ database: Database) throws -> ChangeLog.Scan {
        try log.scan(database, dataVersion: try database.integer("PRAGMA data_version"), wants: { _ in true })
    }

    @Test("the log unchanged: the own entry is passed, nothing to compare")
    func ownEntryPassed() throws {
        let directory = try TemporaryDirectory()
        let (database, log, _) = try ownCommitAfterPosition(directory.database)
        guard case .entries(let entries, _, _, let ownKeys) = try scan(log, database) else {
            Issue.record("expected entries")
            return
        }
        #expect(entries.isEmpty)
        #expect(ownKeys == ["timeout"])
    }

    @Test("the log ends before the own entry (a backup from before it restored): every key is compared")
    func logEndingBeforeOwnEntryResyncs() async throws {
        let directory = try TemporaryDirectory()
        let (database, log, own) = try ownCommitAfterPosition(directory.database)
        try await sqlite3(directory.database, "DELETE FROM defaults_changes WHERE seq = \(own)")
        guard case .resync(let reason, _) = try scan(log, database) else {
            Issue.record("a rewound log was read as nothing new")
            return
        }
        #expect(reason.contains("earlier state"))
    }

    @Test("another key at the own entry's number (restored, then written again): every key is compared")
    func anotherKeyAtOwnEntryResyncs() async throws {
        let directory = try TemporaryDirectory()
        let (database, log, own) = try ownCommitAfterPosition(directory.database)
        try await sqlite3(directory.database, """
            DELETE FROM defaults_changes WHERE seq = \(own);
            INSERT INTO defaults VALUES ('other', 1);
            """)
        #expect(try await sqlite3(directory.database, "SELECT key FROM defaults_changes WHERE seq = \(own)") == "other")
        guard case .resync = try scan(log, database) else {
            Issue.record("a rewritten log was read as this store's own entry")
            return
        }
    }
}
