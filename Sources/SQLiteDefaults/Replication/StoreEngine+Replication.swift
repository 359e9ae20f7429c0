/// The engine's narrow API for a replicator (``ReplicaTransaction``): transactions whose
/// changes are announced as `.external`, and writes attributed to the machine a row came from.
/// The replicator names operations; the connection, its recorder and the history stay here.
extension StoreEngine {
    /// One write transaction for a replicator; its changes are announced as `.external`.
    func replicaTransaction<Result>(_ body: (ReplicaTransaction) throws -> Result) throws -> Result {
        try transaction(origin: .external) { connection in
            let transaction = ReplicaTransaction(engine: self, session: ReplicaSession(connection: connection))
            defer { transaction.end() }
            return try body(transaction)
        }
    }

    /// One read transaction (one snapshot, no write lock) for a replicator's comparisons.
    func replicaRead<Result>(_ body: (ReplicaTransaction) throws -> Result) throws -> Result {
        try withConnection { connection in
            try connection.withReadTransaction {
                let transaction = ReplicaTransaction(engine: self, session: ReplicaSession(connection: connection), readOnly: true)
                defer { transaction.end() }
                return try body(transaction)
            }
        }
    }

    func replicaRow(_ key: String, on session: ReplicaSession) throws -> SQLiteValue? {
        try session.connection.read(key)
    }

    func replicaDeclaration(for key: String, on session: ReplicaSession) throws -> DefaultsDeclaration? {
        try session.connection.declaration(for: key)
    }

    /// Writes one row through the one write path; with a `writer`, the history and the
    /// observers name it instead of this process.
    func replicaWrite(_ key: String, _ value: SQLiteValue?, writer: DefaultsWriter?, on session: ReplicaSession) throws {
        let connection = session.connection
        try Self.validate(key)
        let hashed = HashedKey(key)
        try writeRow(hashed, value, on: connection)
        if let writer { try connection.attributeLastWrite(of: hashed, to: writer) }
    }

    /// Runs `body` on the replica transaction's connection, for the replication feature's own
    /// tables; refuses once a failed statement aborted the transaction.
    func onReplicaConnection<Result>(_ session: ReplicaSession, _ body: (StoreConnection) throws -> Result) throws -> Result {
        if let aborted = session.connection.transactionAborted { throw aborted }
        return try body(session.connection)
    }
}

/// The connection of one replica transaction, as ``ReplicaTransaction`` holds it: a token it
/// passes back to the engine's replication methods, which alone use the connection.
struct ReplicaSession {
    let connection: StoreConnection
}
