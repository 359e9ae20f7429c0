extension DefaultsStore {
    /// Runs `body` as one write transaction for a replicator of this package (the PostgreSQL
    /// fleet sync): what it writes to `defaults` is logged and cached as any write is, and this
    /// store's observers hear it as `.external`, since another machine made the change.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws, after rolling everything back, or ``DefaultsError``
    ///   when the transaction cannot begin or commit.
    package func replicaTransaction<Result>(_ body: (ReplicaTransaction) throws -> Result) throws -> Result {
        try core.replicaTransaction(body)
    }
}

extension DefaultsStore {
    /// Runs `body` in one read transaction (one snapshot, no write lock taken), for a
    /// replicator's comparisons; `body` must not write.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws, or ``DefaultsError`` when reading fails.
    package func replicaRead<Result>(_ body: (ReplicaTransaction) throws -> Result) throws -> Result {
        try core.replicaRead(body)
    }
}
