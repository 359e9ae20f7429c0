import CSQLiteDefaults

/// One write transaction of a replicator in this package (the PostgreSQL fleet sync): rows of
/// `defaults` written through the store's one write path, and SQL on the replicator's own
/// tables, committed together or not at all.
///
/// Package API, not public: it lends SQL access to the store's connection, which only code
/// that keeps the file's invariants (the change log, the cache, the observers) may have. Valid
/// only inside ``DefaultsStore/replicaTransaction(_:)``.
package final class ReplicaTransaction {
    private let engine: StoreEngine
    private let connection: StoreConnection
    private let readOnly: Bool
    private var isOpen = true

    init(engine: StoreEngine, connection: StoreConnection, readOnly: Bool = false) {
        self.engine = engine
        self.connection = connection
        self.readOnly = readOnly
    }

    func end() { isOpen = false }

    private func checkOpen() throws {
        guard isOpen else {
            throw DefaultsError(.misuse, "a ReplicaTransaction was used after its transaction ended")
        }
    }

    /// The key's row as this transaction sees it; `nil` when there is none.
    /// - Throws: ``DefaultsError`` when reading fails.
    package func row(_ key: String) throws -> SQLiteValue? {
        try checkOpen()
        return try connection.read(key)
    }

    /// Writes (or, for `nil`, deletes) the key's row through the store's write path: the
    /// change is logged, cached and announced after the commit like any other write. With a
    /// `writer` (the fleet and the machine the row came from), the history and the observers
    /// name it instead of this process.
    /// - Throws: ``DefaultsError`` — `.invalidKey` for an empty name, or the write's failure.
    package func write(_ key: String, _ value: SQLiteValue?, writer: DefaultsWriter? = nil) throws {
        try checkOpen()
        guard !readOnly else {
            throw DefaultsError(.misuse, "a replicator wrote inside a read transaction")
        }
        try StoreEngine.validate(key)
        let hashed = HashedKey(key)
        try engine.writeRow(hashed, value, on: connection)
        if let writer, let sequences = connection.recorder.lastStatementSequences {
            try HistoryLog.stamp(sequences, writer: writer, database: connection.database)
            connection.replicaWriters[hashed] = writer
        }
    }

    /// Why the key's declaration refuses `value` (one sentence naming the key and the declared
    /// type), or `nil` when it accepts it or the key is not declared. The database stays the
    /// judge: a replicator phrases a refusal with this, and takes a ``write(_:_:writer:)`` the
    /// database refused as a refused row too (a refused write is one aborted statement; the
    /// transaction goes on).
    /// - Throws: ``DefaultsError`` when reading the declaration fails.
    package func refusal(of value: SQLiteValue, for key: String) throws -> String? {
        try checkOpen()
        return try connection.declaration(for: key)?.refusal(of: value)
    }

    /// The key's declaration in this file, or `nil` when it has none: whether a write the
    /// database refused was refused by the key's declaration.
    /// - Throws: ``DefaultsError`` when reading the declaration fails.
    package func declaration(for key: String) throws -> DefaultsDeclaration? {
        try checkOpen()
        return try connection.declaration(for: key)
    }

    /// Runs one SQL statement on the replicator's own tables and returns its rows. Never for
    /// `defaults` or the change log: those change only through ``write(_:_:)``.
    /// - Throws: ``DefaultsError`` when SQLite fails.
    @discardableResult
    package func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try checkOpen()
        if let aborted = connection.transactionAborted { throw aborted }
        let statement = try connection.database.statement(sql)
        defer { statement.reset() }
        for (index, argument) in arguments.enumerated() {
            try statement.bind(argument, at: Int32(index + 1))
        }
        let columns = sqlite3_column_count(statement.handle)
        var result: [[SQLiteValue]] = []
        while try statement.step() {
            result.append((0..<columns).map { statement.value(at: $0) })
        }
        return result
    }

    /// Runs SQL without rows or arguments (several statements allowed), such as the
    /// replicator's `CREATE TABLE IF NOT EXISTS`.
    /// - Throws: ``DefaultsError`` when SQLite fails.
    package func execute(_ sql: String) throws {
        try checkOpen()
        try connection.database.execute(sql)
    }
}
