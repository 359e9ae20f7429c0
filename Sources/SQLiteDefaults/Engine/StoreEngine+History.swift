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
                                           identity: version.recordsWriterIdentity, secrets: version.hasSecrets)
            }
        }
    }

    /// The value history entry `sequence` wrote, as ``DefaultsStore/value(writtenBy:)`` says.
    func writtenValue(sequence: Int64) throws -> (key: String, value: SQLiteValue?) {
        let found = try withConnection { connection -> (key: String, value: SQLiteValue?)? in
            let version = try SchemaVersion.of(connection.database)
            guard version.hasHistory else { return nil }
            return try HistoryLog.writtenValue(sequence: sequence, database: connection.database, secrets: version.hasSecrets)
        }
        guard let found else {
            throw DefaultsError(.notInHistory, "the history keeps no value of change \(sequence) (no such change, a value too large to keep, or a secret another SQL client wrote)")
        }
        return found
    }

    /// `key`'s version (``HistoryLog/version(of:database:)``); 0 on a file without a log.
    func version(of key: String) throws -> Int64 {
        try Self.validate(key)
        return try withConnection { connection in
            let schema = try SchemaVersion.of(connection.database)
            guard schema >= .changeLog else { return 0 }
            return try HistoryLog.version(of: key, schema: schema, database: connection.database)
        }
    }

    /// Every key's version, read in one snapshot.
    func versions() throws -> [String: Int64] {
        try withConnection { connection in
            try connection.readConsistently {
                let schema = try SchemaVersion.of(connection.database)
                guard schema >= .changeLog else { return [:] }
                return try HistoryLog.versions(schema: schema, connection.database)
            }
        }
    }

    /// Throws `.versionConflict` unless `key` is at version `expected`. Call inside the
    /// transaction whose writes depend on it, so the check and the writes are one.
    func requireVersion(_ expected: Int64, of key: String) throws {
        let current = try version(of: key)
        guard current == expected else {
            var error = DefaultsError(.versionConflict,
                                      "\"\(key)\" is at version \(current), not \(expected): it changed since it was read; nothing was written",
                                      key: key)
            error.currentVersion = current
            throw error
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
