import Foundation

/// The history's engine half: the log's rows (``HistoryLog/Row``) made into the public
/// ``DefaultsHistoryEntry``, so the public face never names the log.
extension StoreEngine {
    /// The newest `limit` entries of `keys` (all keys when nil), older than `before` when given,
    /// each value decoded by `decode`.
    func historyEntries<Value>(keys: [String]?, limit: Int, before: Int64? = nil,
                               decode: (SQLiteValue) throws -> Value) throws -> [DefaultsHistoryEntry<Value>] {
        try history(keys: keys, limit: limit, before: before).map { Self.historyEntry($0, decode: decode) }
    }

    /// A row of the log as an entry, its value decoded by `decode`.
    static func historyEntry<Value>(_ row: HistoryLog.Row, decode: (SQLiteValue) throws -> Value) -> DefaultsHistoryEntry<Value> {
        let value: DefaultsHistoryValue<Value>
        if row.isRemoved {
            value = .removed
        } else if row.isSecret {
            value = .secret(digest: row.digest)
        } else if let omitted = row.omitted {
            value = .tooLargeToKeep(byteCount: omitted)
        } else if let stored = row.value {
            do {
                value = .value(try decode(stored))
            } catch {
                value = .undecodable(stored)
            }
        } else {
            value = .removed
        }
        return DefaultsHistoryEntry(sequence: row.sequence, key: row.key,
                                    date: Date(timeIntervalSince1970: Double(row.milliseconds) / 1000),
                                    value: value, writer: row.writer)
    }

    /// The next page of a change feed: up to `limit` entries after `cursor`, oldest first, read
    /// in one snapshot with the log's span, so that a gap is never mistaken for the end.
    /// - Throws: `.historyCompacted` when entries after `cursor` were pruned; `.historyRewound`
    ///   when `cursor` is past the newest entry; the errors of a read.
    /// - Returns: the page's entries of TEXT keys that `accepts` takes, and the sequence of its last entry (nil when
    ///   there was none), which the feed's position moves to even when every entry was skipped.
    func feedPage(after cursor: Int64, limit: Int,
                  accepts: (String) -> Bool) throws -> (entries: [DefaultsHistoryEntry<SQLiteValue>], last: Int64?) {
        let rows = try withConnection { connection -> [HistoryLog.Row] in
            try connection.readConsistently {
                let version = try SchemaVersion.of(connection.database)
                guard version.hasHistory else { return [] }
                let span = try HistoryLog.span(connection.database)
                let newest = span?.upperBound ?? 0
                if cursor > newest {
                    // Named as for a compacted history: a consumer that starts again from the
                    // one before it gets every change the file keeps (none kept: nil).
                    let oldest = span.map { " (the oldest it keeps is \($0.lowerBound))" } ?? " (it keeps none)"
                    var error = DefaultsError(.historyRewound, "the history's newest change is \(newest), before \(cursor): a sequence of another file, or the file went back to an older state (a backup restored)\(oldest)", path: path)
                    error.oldestKeptSequence = span?.lowerBound
                    throw error
                }
                if let span, cursor < span.lowerBound - 1 {
                    var error = DefaultsError(.historyCompacted, "the history no longer keeps the changes after \(cursor): the oldest it keeps is \(span.lowerBound)", path: path)
                    error.oldestKeptSequence = span.lowerBound
                    throw error
                }
                return try HistoryLog.rows(after: cursor, limit: limit, database: connection.database,
                                           identity: version.recordsWriterIdentity, secrets: version.hasSecrets)
            }
        }
        var entries: [DefaultsHistoryEntry<SQLiteValue>] = []
        entries.reserveCapacity(rows.count)
        for row in rows where row.keyIsText && accepts(row.key) {
            entries.append(Self.historyEntry(row) { $0 })
        }
        return (entries, rows.last?.sequence)
    }

    /// The newest entry's sequence; 0 when the log holds none.
    func newestSequence() throws -> Int64 {
        try withConnection { connection in
            guard try SchemaVersion.of(connection.database).hasHistory else { return 0 }
            return try HistoryLog.span(connection.database)?.upperBound ?? 0
        }
    }
}
