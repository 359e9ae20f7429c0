import CSQLiteDefaults
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
final class ChangeRecorder {
    struct Changes {
        /// Final stored value per key, `nil` when the row was deleted; `order` keeps first-write order.
        var values: [String: SQLiteValue?] = [:]
        var order: [String] = []
        var logSequences: [Int64] = []

        var isEmpty: Bool { order.isEmpty && logSequences.isEmpty }

        mutating func record(key: String, value: SQLiteValue?) {
            if values.updateValue(value, forKey: key) == nil { order.append(key) }
        }

        mutating func merge(_ other: Changes) {
            for key in other.order { record(key: key, value: other.values[key] ?? nil) }
            logSequences += other.logSequences
        }
    }

    private var statementKey: String?
    private var statementValue: SQLiteValue?
    private var statementChangedRow = false
    private var statementSequences: [Int64] = []

    /// Changes of the open transaction (or of the autocommit statement just run).
    private(set) var pending = Changes()
    /// Set by the rollback hook; tells the store to forget `pending`.
    private var rolledBack = false

    func install(on handle: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(handle, { context, operation, _, table, rowid in
            guard let context, let table else { return }
            Unmanaged<ChangeRecorder>.fromOpaque(context).takeUnretainedValue()
                .rowChanged(operation: operation, table: table, rowid: rowid)
        }, context)
        sqlite3_rollback_hook(handle, { context in
            guard let context else { return }
            Unmanaged<ChangeRecorder>.fromOpaque(context).takeUnretainedValue().rolledBack = true
        }, context)
        sqlite3_commit_hook(handle, { _ in 0 }, nil)  // commit proceeds; delivery waits for the step to return
    }

    func uninstall(from handle: OpaquePointer) {
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
        sqlite3_commit_hook(handle, nil, nil)
    }

    /// Called before stepping a write statement for `key`.
    func begin(key: String, value: SQLiteValue?) {
        statementKey = key
        statementValue = value
        statementChangedRow = false
        statementSequences.removeAll(keepingCapacity: true)
        rolledBack = false
    }

    /// Called after the statement succeeded: its change joins the transaction's.
    func statementSucceeded() {
        if statementChangedRow, let key = statementKey {
            pending.record(key: key, value: statementValue)
        }
        pending.logSequences += statementSequences
        statementKey = nil
    }

    /// Called after the statement failed: SQLite undid it, so is its record.
    func statementFailed() {
        statementKey = nil
        statementChangedRow = false
        statementSequences.removeAll(keepingCapacity: true)
        if rolledBack { pending = Changes() }
    }

    /// Takes the committed changes (after COMMIT or an autocommit step returned).
    func takeCommitted() -> Changes {
        defer { pending = Changes(); rolledBack = false }
        return rolledBack ? Changes() : pending
    }

    /// Forgets everything (after ROLLBACK).
    func discard() {
        pending = Changes()
        rolledBack = false
    }

    /// For `SAVEPOINT` / `ROLLBACK TO`: the changes to return to.
    func snapshot() -> Changes { pending }
    func restore(_ changes: Changes) { pending = changes }

    private func rowChanged(operation: Int32, table: UnsafePointer<CChar>, rowid: Int64) {
        if strcmp(table, "defaults") == 0 {
            statementChangedRow = true
        } else if operation == SQLITE_INSERT, strcmp(table, "defaults_changes") == 0 {
            statementSequences.append(rowid)
        }
    }
}
