/// The async forms of the reads the cache cannot answer (history, listings, declarations):
/// each runs on the store's own thread, so async code never reads the file on a thread the
/// process shares. They wait for no lock (a write lock held elsewhere does not delay them),
/// only for the calls queued before them on the store's thread.
///
/// Reads of one key (``value(for:)``, the subscript) are answered from the cache and stay
/// synchronous.
extension DefaultsStore {
    /// ``history(for:limit:)`` from async code.
    /// - Returns: the entries, newest first.
    /// - Throws: as ``history(for:limit:)``; `CancellationError` before the read started;
    ///   `.closed` when the store closed first.
    public func history<Value>(for key: DefaultsKey<Value>, limit: Int = 100) async throws -> [DefaultsHistoryEntry<Value>] {
        try await onStoreThread { try self.history(for: key, limit: limit) }
    }

    /// ``history(keys:limit:)`` from async code.
    /// - Returns: the entries, newest first.
    /// - Throws: as ``history(keys:limit:)``; `CancellationError` before the read started.
    public func history(keys: [String]? = nil, limit: Int = 100) async throws -> [DefaultsHistoryEntry<SQLiteValue>] {
        try await onStoreThread { try self.history(keys: keys, limit: limit) }
    }

    /// ``history(keys:limit:before:)`` from async code: one page of the history.
    /// - Returns: the entries, newest first.
    /// - Throws: as ``history(keys:limit:before:)``; `CancellationError` before the read started.
    public func history(keys: [String]?, limit: Int, before: Int64?) async throws -> [DefaultsHistoryEntry<SQLiteValue>] {
        try await onStoreThread { try self.history(keys: keys, limit: limit, before: before) }
    }

    /// ``newestSequence()`` from async code.
    /// - Returns: the newest change's sequence, 0 when the history holds none.
    /// - Throws: as ``newestSequence()``; `CancellationError` before the read started.
    public func newestSequence() async throws -> Int64 {
        try await onStoreThread { try self.newestSequence() }
    }

    /// ``entries()`` from async code: every row as stored, sorted by key.
    /// - Returns: one ``DefaultsEntry`` per row.
    /// - Throws: as ``entries()``; `CancellationError` before the read started.
    public func entries() async throws -> [DefaultsEntry] {
        try await onStoreThread { try self.entries() }
    }

    /// ``keys()`` from async code: every stored key's name, sorted.
    /// - Returns: the names.
    /// - Throws: as ``keys()``; `CancellationError` before the read started.
    public func keys() async throws -> [String] {
        try await onStoreThread { try self.keys() }
    }

    /// ``declarations()`` from async code.
    /// - Returns: the declarations, sorted by key.
    /// - Throws: as ``declarations()``; `CancellationError` before the read started.
    public func declarations() async throws -> [DefaultsDeclaration] {
        try await onStoreThread { try self.declarations() }
    }
}
