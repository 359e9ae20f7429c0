/// The change feed: every committed change after a position, from the history, then live.
extension DefaultsStore {
    /// Every change committed after history sequence `sequence`, in commit order, one element
    /// per change, then each new change as it commits — from this store, another process, the
    /// fleet or a raw SQL client. See ``DefaultsChangeFeed``.
    ///
    /// ```swift
    /// for try await change in store.changes(since: store.newestSequence(), keys: ["timeout"]) {
    ///     print(change.sequence, change.key, change.value, change.writer.actor ?? "-")
    /// }
    /// ```
    ///
    /// Which API for what: ``observe(_:_:)``, ``updates(_:initial:)`` and ``changes(_:)`` give
    /// the newest value and may coalesce changes a slow consumer missed (the right thing for
    /// state: a UI, a cache, a configuration reload). A feed gives every change, never coalesced,
    /// and resumes from a saved position (the right thing for an audit log, a replica, a
    /// webhook, anything that counts or forwards changes).
    ///
    /// - Parameters:
    ///   - sequence: the position: the feed starts with the first change after it. 0 for every
    ///     change the history keeps; ``newestSequence()-8hg2k`` for only what commits from now on.
    ///   - keys: only these keys (exact names, as SQLite compares them: by bytes); nil for all.
    ///   - prefix: only keys whose name starts with these bytes (`"feature."`); nil for all.
    ///     With `keys` too, a change must match both.
    /// - Returns: the feed; reading it throws ``DefaultsError/Code/historyCompacted`` or
    ///   ``DefaultsError/Code/historyRewound`` as ``DefaultsChangeFeed`` says.
    public func changes(since sequence: Int64, keys: [String]? = nil, prefix: String? = nil) -> DefaultsChangeFeed {
        DefaultsChangeFeed(core: core, since: sequence, keys: keys.map { Set($0.map(HashedKey.init)) },
                           prefix: prefix.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The sequence of the newest change the history holds (0 when it holds none): the
    /// position a feed that wants only future changes starts from, and what a consumer stores
    /// to resume.
    /// - Throws: ``DefaultsError`` as a read does.
    public func newestSequence() throws -> Int64 {
        try core.newestSequence()
    }
}
