import CSQLiteDefaults
import Foundation

/// Everything that belongs to the store's connection and is touched only by the thread
/// holding it (see ``DatabaseAccess``): the connection, its hook recorder, transaction
/// nesting, and the bookkeeping of the change log.
final class ConnectionState {
    let database: Database
    let recorder = ChangeRecorder()

    /// Nesting of `transaction { }` / `modify` on this connection; 0 outside any.
    var transactionDepth = 0
    /// Set when SQLite rolled an open transaction back by itself (for example on a full
    /// disk): every later statement of that transaction must fail, not autocommit.
    var transactionAborted: DefaultsError?

    /// The highest change-log `seq` this store has accounted for.
    var lastSeenSequence: Int64 = 0
    /// Change-log entries of this connection's own commits that the monitor has not yet
    /// passed, as ascending ranges (one per commit, merged when they touch).
    var ownSequences: [ClosedRange<Int64>] = []
    /// `PRAGMA data_version` at the last check; it moves only when another connection commits.
    var dataVersion: Int64 = 0
    /// Whether anyone reads the change log (false for in-memory stores).
    let tracksChangeLog: Bool
    private var commitsSincePrune = 0

    // The statements of the hot paths, kept here so a write or a read does not look them up
    // by SQL text (hashing ~150 bytes) in the connection's statement cache every time, and
    // BEGIN/COMMIT are not parsed again by sqlite3_exec for every transaction.
    private var selectStatement: Statement?
    private var upsertStatement: Statement?
    private var deleteStatement: Statement?
    private var beginStatement: Statement?
    private var commitStatement: Statement?

    private func kept(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try database.statement(sql)
        slot = statement
        return statement
    }

    init(database: Database, tracksChangeLog: Bool) {
        self.database = database
        self.tracksChangeLog = tracksChangeLog
        recorder.install(on: database.handle)
    }

    deinit {
        recorder.uninstall(from: database.handle)
    }

    // MARK: Rows

    func read(_ key: String) throws -> SQLiteValue? {
        let statement = try kept(&selectStatement, "SELECT value FROM defaults WHERE key = ?1")
        return try statement.withBorrowedText(key, at: 1) {
            try statement.step() ? statement.value(at: 0) : nil
        }
    }

    func keys() throws -> [String] {
        let statement = try database.statement("SELECT key FROM defaults ORDER BY key")
        defer { statement.reset() }
        var keys: [String] = []
        while try statement.step() { keys.append(statement.text(at: 0)) }
        return keys
    }

    func entries() throws -> [(key: String, value: SQLiteValue)] {
        let statement = try database.statement("SELECT key, value FROM defaults ORDER BY key")
        defer { statement.reset() }
        var entries: [(key: String, value: SQLiteValue)] = []
        while try statement.step() { entries.append((statement.text(at: 0), statement.value(at: 1))) }
        return entries
    }

    /// Writes one row (`nil` deletes it) and records the change for delivery after commit.
    ///
    /// The upsert leaves the row alone when it already holds this exact value (same
    /// storage class too), so rewriting a value fires no hook and logs nothing.
    func write(_ key: String, _ value: SQLiteValue?) throws {
        if let aborted = transactionAborted { throw aborted }
        let statement: Statement
        if value != nil {
            statement = try kept(&upsertStatement, """
                INSERT INTO defaults(key, value) VALUES (?1, ?2)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                WHERE value IS NOT excluded.value OR typeof(value) IS NOT typeof(excluded.value)
                """)
        } else {
            statement = try kept(&deleteStatement, "DELETE FROM defaults WHERE key = ?1")
        }
        try statement.withBorrowedText(key, at: 1) {
            guard let value else { return try step(statement, key: key, value: nil) }
            try statement.withBorrowedValue(value, at: 2) { try step(statement, key: key, value: value) }
        }
    }

    /// Steps a bound write statement, recording its change for delivery after the commit.
    private func step(_ statement: Statement, key: String, value: SQLiteValue?) throws {
        recorder.begin(key: key, value: value)
        // Outside a transaction a write that meets a busy database after the busy timeout, or a
        // stale WAL snapshot, changed nothing: retrying it is safe.
        var attempt = 0
        while true {
            do {
                _ = try statement.step()
                recorder.statementSucceeded()
                return
            } catch let error as DefaultsError where error.code == .busy && transactionDepth == 0 && attempt < 3 {
                attempt += 1
                sqlite3_reset(statement.handle)  // keeps the bindings for the retry
            } catch {
                recorder.statementFailed()
                if transactionDepth > 0, !database.isInTransaction, let error = error as? DefaultsError {
                    transactionAborted = error
                }
                throw error
            }
        }
    }

    // MARK: Transactions

    func begin() throws {
        if transactionDepth == 0 {
            transactionAborted = nil
            let begin = try kept(&beginStatement, "BEGIN IMMEDIATE")
            defer { begin.reset() }
            _ = try begin.step()
        } else {
            try database.execute("SAVEPOINT nested_\(transactionDepth)")
        }
        transactionDepth += 1
    }

    /// Commits the outermost transaction (returning true: its changes are in
    /// `recorder.committed`) or releases a savepoint (returning false).
    func commit() throws -> Bool {
        transactionDepth -= 1
        if transactionDepth > 0 {
            try database.execute("RELEASE nested_\(transactionDepth)")
            return false
        }
        if let aborted = transactionAborted {
            transactionAborted = nil
            recorder.clear()
            throw aborted
        }
        do {
            let commit = try kept(&commitStatement, "COMMIT")
            defer { commit.reset() }
            _ = try commit.step()
        } catch {
            if database.isInTransaction { try? database.execute("ROLLBACK") }
            recorder.clear()
            throw error
        }
        return true
    }

    func rollback(to mark: ChangeRecorder.Mark) {
        transactionDepth -= 1
        if transactionDepth > 0 {
            try? database.execute("ROLLBACK TO nested_\(transactionDepth); RELEASE nested_\(transactionDepth)")
            recorder.restore(mark)
        } else {
            if database.isInTransaction { try? database.execute("ROLLBACK") }
            transactionAborted = nil
            recorder.clear()
        }
    }

    // MARK: Change log

    /// Notes this connection's own log entries after a commit, and now and then prunes the
    /// log so it stays bounded (a store that falls further behind than the log reaches
    /// re-reads every key it knows instead).
    func noteCommitted(_ logSequences: ClosedRange<Int64>?) {
        guard let logged = logSequences else { return }
        if tracksChangeLog {
            if let last = ownSequences.last, last.upperBound + 1 >= logged.lowerBound {
                ownSequences[ownSequences.count - 1] = last.lowerBound...max(last.upperBound, logged.upperBound)
            } else {
                ownSequences.append(logged)
            }
        }
        commitsSincePrune += 1
        if commitsSincePrune >= Self.pruneEvery {
            commitsSincePrune = 0
            try? pruneChangeLog(keepingAfter: logged.upperBound - Self.changeLogLength)
        }
    }

    static let changeLogLength: Int64 = 10_000
    static let pruneEvery = 1_000

    private func pruneChangeLog(keepingAfter sequence: Int64) throws {
        guard sequence > 0 else { return }
        let statement = try database.statement("DELETE FROM defaults_changes WHERE seq <= ?1")
        defer { statement.reset() }
        try statement.bind(sequence, at: 1)
        _ = try statement.step()
    }

    /// What other connections committed since the last call: the keys they changed, in
    /// commit order, or `nil` when the log no longer reaches back that far (re-read all).
    func externalChanges() throws -> [String]? {
        let version = try database.integer("PRAGMA data_version")
        if version == dataVersion {
            // Nobody else committed: every newer log entry is ours.
            if let newest = ownSequences.last?.upperBound { lastSeenSequence = max(lastSeenSequence, newest) }
            ownSequences.removeAll(keepingCapacity: true)
            return []
        }
        dataVersion = version
        let statement = try database.statement("SELECT seq, key FROM defaults_changes WHERE seq > ?1 ORDER BY seq")
        defer { statement.reset() }
        try statement.bind(lastSeenSequence, at: 1)
        var keys: [String] = []
        var seen = Set<String>()
        var expected = lastSeenSequence + 1
        var gap = false
        var ownIndex = ownSequences.startIndex
        while try statement.step() {
            let sequence = statement.int64(at: 0)
            if sequence > expected { gap = true }  // pruned before we read it
            expected = sequence + 1
            lastSeenSequence = sequence
            // Both ascend: walk the ranges along with the log.
            while ownIndex < ownSequences.endIndex, ownSequences[ownIndex].upperBound < sequence { ownIndex += 1 }
            if ownIndex < ownSequences.endIndex, ownSequences[ownIndex].contains(sequence) { continue }
            let key = statement.text(at: 1)
            if seen.insert(key).inserted { keys.append(key) }
        }
        ownSequences.removeAll { $0.upperBound <= lastSeenSequence }
        return gap ? nil : keys
    }

    /// Starts change-log bookkeeping from the log's present end.
    func startTrackingChangeLog() throws {
        lastSeenSequence = try database.integer("SELECT coalesce(max(seq), 0) FROM defaults_changes")
        dataVersion = try database.integer("PRAGMA data_version")
    }
}
