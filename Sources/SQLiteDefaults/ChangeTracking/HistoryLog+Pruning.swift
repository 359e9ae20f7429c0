import Foundation

/// Pruning when others write: a store prunes the log on its own once it has grown past the kept
/// length plus a slack, so SQL writers (who never prune) cannot grow it without bound.
extension HistoryLog {
    /// How far past the kept length the log may grow before a store prunes it on its own
    /// (``pruneIfOverdue(_:)``): 1% of the length, at least one entry. A prune is a write
    /// transaction; with no slack, a stream of other writers' commits would cost one prune
    /// each. At the shortest length (100) the log holds at most 101 entries between prunes.
    static func slack(keeping kept: Int) -> Int { max(1, kept / 100) }

    /// The span of the log (newest number minus oldest, plus one) and the length the file
    /// keeps. Two subqueries, not `max(seq) - min(seq)` in one: SQLite answers a lone `min()`
    /// or `max()` from the end of the rowid B-tree, but scans the table for both together.
    static let spanSQL = """
        SELECT (SELECT max(seq) FROM defaults_changes) - (SELECT min(seq) FROM defaults_changes) + 1,
               (SELECT kept FROM defaults_history_settings LIMIT 1)
        """

    /// What ``pruneIfOverdue(_:)`` did.
    enum PruneOutcome: Equatable {
        /// The log holds no more than the kept length plus ``slack(keeping:)``: nothing to do.
        case notDue
        /// Entries older than the newest kept changes were deleted.
        case pruned
        /// Another connection held the write lock: nothing was done; try again later.
        case busy
    }

    /// Prunes the log when it has grown past the kept length plus ``slack(keeping:)``, for a
    /// store that does not write (or not often): other writers' commits, whoever they are
    /// (`sqlite3`, Python, another process that never prunes), are bounded too. Called when a
    /// store opens and after it has applied other connections' commits — never on the path of
    /// its own `set`, which prunes by ``StoreConnection/notePrunableCommit(_:)``.
    ///
    /// Never waits for the write lock: the monitor's thread serves every store of the process,
    /// and opening must not queue behind another writer. When the lock is held it answers
    /// ``PruneOutcome/busy`` at once. Its cost when nothing is due is one statement reading
    /// the two ends of the log's rowid B-tree (``spanSQL``).
    ///
    /// Call outside a transaction, on a connection that may write (never a read-only store's).
    static func pruneIfOverdue(_ database: Database) throws -> PruneOutcome {
        let kept: Int
        do {
            let span = try database.statement(spanSQL)
            defer { span.reset() }
            guard try span.step(), !span.isNull(at: 0) else { return .notDue }
            let stored = span.optionalInt64(at: 1).map { Int(clamping: $0) }
            kept = stored.flatMap { keptRange.contains($0) ? $0 : nil } ?? defaultKept
            guard span.int64(at: 0) > Int64(kept + slack(keeping: kept)) else { return .notDue }
        }
        let timeout = try database.integer("PRAGMA busy_timeout")
        try database.execute("PRAGMA busy_timeout = 0")
        defer { try? database.execute("PRAGMA busy_timeout = \(timeout)") }
        do {
            try prune(keeping: kept, database: database)
        } catch let error as DefaultsError where error.code == .busy {
            return .busy
        }
        return .pruned
    }

    /// The number of the oldest entry a prune keeps; nil when the log is empty.
    static func oldestKept(keeping kept: Int, schema: SchemaVersion, database: Database) throws -> Int64? {
        let newest = try database.statement("SELECT max(seq) FROM defaults_changes")
        let last: Int64
        do {
            defer { newest.reset() }
            guard try newest.step(), !newest.isNull(at: 0) else { return nil }
            last = newest.int64(at: 0)
        }
        // A log from before 0009 has no list of its superseded entries: they are counted in the
        // log itself, reading the window (the cost 0009 removed, on such a file only).
        let superseded = try database.statement(schema.listsSuperseded ? supersededSinceSQL : """
            SELECT count(*) FROM defaults_changes WHERE seq >= ?1 AND superseded IS NOT NULL
            """)
        var oldestKept = last - Int64(kept) + 1
        // Each round widens the window by the superseded rows found in it; it stops when the
        // window holds `kept` rows that are not superseded (or reaches past the oldest entry).
        while true {
            try superseded.bind(oldestKept, at: 1)
            let count: Int64
            do {
                defer { superseded.reset() }
                count = try superseded.step() ? superseded.int64(at: 0) : 0
            }
            let widened = last - Int64(kept) + 1 - count
            guard widened < oldestKept else { return oldestKept }
            oldestKept = widened
        }
    }

    /// Counts the superseded entries from `?1` on (a range of `defaults_changes_superseded`).
    static let supersededSinceSQL = "SELECT count(*) FROM defaults_changes_superseded WHERE seq >= ?1"
}
