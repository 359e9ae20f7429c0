import Foundation

/// Transactions on the store's connection (lock held): the write transaction with its nested
/// savepoints, and the read transactions that give the monitor's looks one snapshot.
extension StoreConnection {
    func begin() throws {
        if let aborted = transactionAborted, transactionDepth > 0 { throw aborted }
        if transactionDepth == 0 {
            transactionAborted = nil
            replicaWriters.removeAll()
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
            // History's one entry per key: inside the transaction, so it commits with it.
            if recorder.pendingWrites.count > 1 {
                try HistoryLog.foldRepeatedWrites(recorder.pendingWrites, database: database)
            }
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
            replicaWriters.removeAll()
            recorder.clear()
        }
    }

    // MARK: Reading other connections' changes

    /// Runs `body` in one snapshot: inside the open transaction when there is one (it sees that
    /// transaction's own writes), else in a read transaction of its own.
    func readConsistently<Result>(_ body: () throws -> Result) throws -> Result {
        if database.isInTransaction { return try body() }
        return try withReadTransaction(body)
    }

    /// Runs `body` in a read transaction: the change log and the rows read for it come from
    /// one snapshot. Rolled back (it wrote nothing) when `body` throws.
    func withReadTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        // Kept statements: the monitor runs this at every look, and parsing BEGIN and COMMIT
        // each time cost more than the work between them.
        let begin = try kept(&beginReadStatement, "BEGIN")
        defer { begin.reset() }
        _ = try begin.step()
        do {
            let result = try body()
            let commit = try kept(&commitStatement, "COMMIT")
            defer { commit.reset() }
            _ = try commit.step()
            return result
        } catch {
            if database.isInTransaction { try? database.execute("ROLLBACK") }
            recorder.clear()
            throw error
        }
    }
}
