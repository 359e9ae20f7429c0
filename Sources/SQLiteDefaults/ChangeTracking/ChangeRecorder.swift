import Foundation

/// Collects what SQLite's hooks report on the store's connection, so that observers hear
/// about a change only after it commits, and never about a rolled-back one.
///
/// Mapping rows to keys: `sqlite3_update_hook` reports a table and a rowid, never the
/// row's content, and a deleted row cannot be read back. Every write this connection makes
/// is one statement about one key, so before stepping it the store names the key and the
/// value it writes (`begin(key:value:)`); a hook call for table `defaults` during that step
/// is filed under that key, a DELETE included. A statement that changes no row (an upsert of
/// the value already stored, a delete of a missing key) fires no hook and is forgotten.
/// Hook calls for `defaults_changes` (the change-log triggers' inserts) carry the log's
/// `seq`: those numbers are this connection's own entries, which the external-change
/// monitor must not report back as external.
final class ChangeRecorder: DatabaseHooks {
    /// One row written by a statement: the key, the value stored (`nil`: deleted), and the
    /// change-log entries its triggers added (history folds a key's repeated writes by them).
    struct Write {
        /// The key with its hash, made once by the caller (a `DefaultsKey` carries it): the
        /// transaction's fold, the cache and the observers look it up without hashing again.
        let hashedKey: HashedKey
        let value: SQLiteValue?
        var sequences: ClosedRange<Int64>? = nil

        var key: String { hashedKey.name }
    }

    /// What a transaction changed.
    struct Changes {
        /// Every row write, in order; a key written twice appears twice (see ``finalValues()``).
        /// Recording is an append, so a write inside a transaction hashes nothing.
        var writes: [Write] = []
        /// This connection's change-log entries. Contiguous: no other connection can log
        /// while this one holds the write lock, and a rolled-back entry gives its `seq` back.
        var logSequences: ClosedRange<Int64>?
        /// The key of the newest of those entries (every write of this connection logs the
        /// key it wrote), so the change log can tell later that its entry is still there.
        var lastLoggedKey: String?

        var isEmpty: Bool { writes.isEmpty && logSequences == nil }

        mutating func log(_ sequences: ClosedRange<Int64>, key: String?) {
            guard let known = logSequences else { logSequences = sequences; lastLoggedKey = key; return }
            if sequences.upperBound >= known.upperBound { lastLoggedKey = key }
            logSequences = min(known.lowerBound, sequences.lowerBound)...max(known.upperBound, sequences.upperBound)
        }

        /// Each key written once, in first-write order, with its final value.
        func finalValues() -> [Write] {
            guard writes.count > 1 else { return writes }
            // By bytes, as SQLite tells keys apart (``HashedKey``), not by `String` equality.
            var lastWrite = [HashedKey: Int](minimumCapacity: writes.count)
            for (index, write) in writes.enumerated() { lastWrite[write.hashedKey] = index }
            if lastWrite.count == writes.count { return writes }
            var result: [Write] = []
            result.reserveCapacity(lastWrite.count)
            for write in writes {
                guard let last = lastWrite.removeValue(forKey: write.hashedKey) else { continue }
                result.append(writes[last])
            }
            return result
        }
    }

    /// Where the changes stood when a savepoint began (``mark()``), to return to on
    /// `ROLLBACK TO` without copying what was recorded before.
    struct Mark {
        let writeCount: Int
        let logSequences: ClosedRange<Int64>?
        let lastLoggedKey: String?
    }

    private var statementKey: HashedKey?
    private var statementValue: SQLiteValue?
    private var statementChangedRow = false
    private var statementSequences: ClosedRange<Int64>?

    /// Changes of the open transaction (or of the autocommit statement just run). Cleared
    /// keeping its capacity, so steady writing allocates nothing here.
    private var pending = Changes()
    /// Set by the rollback hook; tells the store to forget `pending`.
    private var rolledBack = false

    func install(on database: Database) {
        database.installHooks(self)
    }

    func uninstall(from database: Database) {
        database.removeHooks()
    }

    /// Called before stepping a write statement for `key`.
    func begin(key: HashedKey, value: SQLiteValue?) {
        statementKey = key
        statementValue = value
        statementChangedRow = false
        statementSequences = nil
        lastStatementSequences = nil
        rolledBack = false
    }

    /// Called after the statement succeeded: its change joins the transaction's.
    func statementSucceeded() {
        if statementChangedRow, let key = statementKey {
            pending.writes.append(Write(hashedKey: key, value: statementValue, sequences: statementSequences))
        }
        if let sequences = statementSequences { pending.log(sequences, key: statementKey?.name) }
        lastStatementSequences = statementSequences
        statementKey = nil
        statementValue = nil
    }

    /// Called after the statement failed: SQLite undid it, so is its record.
    func statementFailed() {
        statementKey = nil
        statementValue = nil
        statementChangedRow = false
        statementSequences = nil
        if rolledBack { clear() }
    }

    /// The open transaction's writes so far, in order (for history's folding before COMMIT).
    var pendingWrites: [Write] { pending.writes }

    /// The log entries of the statement just run (before ``statementSucceeded()`` is called
    /// for the next one): for a replicator that names their writer.
    private(set) var lastStatementSequences: ClosedRange<Int64>?

    /// Hands `body` the changes of the transaction that just committed (or of the autocommit
    /// statement just run; none when SQLite rolled it back by itself), then forgets them.
    /// Lent, not copied, so the kept capacity is reused by the next transaction.
    func consumeCommitted(_ body: (borrowing Changes) -> Void) {
        if !rolledBack { body(pending) }
        clear()
    }

    /// Forgets everything (after a commit was published, or after ROLLBACK).
    func clear() {
        pending.writes.removeAll(keepingCapacity: true)
        pending.logSequences = nil
        pending.lastLoggedKey = nil
        rolledBack = false
    }

    /// For `SAVEPOINT` / `ROLLBACK TO`: where to return to.
    func mark() -> Mark { Mark(writeCount: pending.writes.count, logSequences: pending.logSequences, lastLoggedKey: pending.lastLoggedKey) }

    func restore(_ mark: Mark) {
        // Fewer writes than the mark: SQLite rolled the whole transaction back by itself, and
        // the store will refuse to commit it.
        if mark.writeCount < pending.writes.count { pending.writes.removeSubrange(mark.writeCount...) }
        pending.logSequences = mark.logSequences
        pending.lastLoggedKey = mark.lastLoggedKey
    }

    func transactionRolledBack() {
        rolledBack = true
    }

    func rowChanged(_ change: RowChange, table: UnsafePointer<CChar>, rowid: Int64) {
        if strcmp(table, "defaults") == 0 {
            statementChangedRow = true
        } else if change == .insert, strcmp(table, "defaults_changes") == 0 {
            statementSequences = statementSequences.map { min($0.lowerBound, rowid)...max($0.upperBound, rowid) } ?? rowid...rowid
        }
    }
}
