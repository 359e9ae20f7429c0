import Foundation

/// History: the change log's entries with their values, times and writers, read in one
/// snapshot, and the number of changes the file keeps.
extension StoreEngine {
    /// The largest TEXT or BLOB whose value the history keeps (``DefaultsStore/historyValueLimit``).
    static var historyValueLimit: Int { HistoryLog.valueLimit }

    func history(keys: [String]?, limit: Int, before: Int64? = nil) throws -> [HistoryLog.Row] {
        guard limit >= 0 else {
            throw DefaultsError(.misuse, "a history limit must not be negative (it was \(limit))")
        }
        if let keys { for key in keys { try Self.validate(key) } }
        return try withConnection { connection in
            try connection.readConsistently {
                // A read-only store on a file no writer has migrated yet: nothing was kept.
                let version = try SchemaVersion.of(connection.database)
                guard version.hasHistory else { return [] }
                return try HistoryLog.rows(connection.database, keys: keys, limit: limit, before: before,
                                           identity: version.recordsWriterIdentity)
            }
        }
    }

    func historyLength() throws -> Int {
        try withConnection { connection in
            guard try SchemaVersion.of(connection.database).hasHistory else { return HistoryLog.defaultKept }
            return try HistoryLog.kept(connection.database)
        }
    }

    func setHistoryLength(_ count: Int) throws {
        guard HistoryLog.keptRange.contains(count) else {
            throw DefaultsError(.invalidConfiguration,
                                "a history length must be between \(HistoryLog.keptRange.lowerBound) and \(HistoryLog.keptRange.upperBound) changes (it was \(count))")
        }
        _ = try transaction { connection in
            try HistoryLog.setKept(count, database: connection.database)
        }
    }
}
