/// Every committed change after a sequence, in commit order, one element per change — never
/// coalesced — then each new one as it commits: ``DefaultsStore/changes(since:keys:prefix:)``.
///
/// ```swift
/// var position = try loadPosition() ?? store.newestSequence()
/// for try await change in store.changes(since: position, prefix: "feature.") {
///     apply(change)                       // sequence, key, value or removal, date, writer
///     position = change.sequence
///     try savePosition(position)          // a restart goes on from here, missing nothing
/// }
/// ```
///
/// The history is the buffer: a consumer that falls behind reads the changes from the file when
/// it gets to them, so nothing is held in memory for it and nothing is dropped. What can end a
/// feed is the history's length (the newest 10,000 changes by default,
/// ``DefaultsStore/setHistoryRetention(_:)-7h8mf``): a feed whose next change was pruned throws
/// ``DefaultsError/Code/historyCompacted`` (with ``DefaultsError/oldestKeptSequence``) rather
/// than skip it. A position newer than the file's newest change throws
/// ``DefaultsError/Code/historyRewound``: a sequence of another file, or the file went back to
/// an older state (a backup restored under it) — the feed cannot tell which changes it saw
/// are gone, so it stops. The feed ends (returns `nil`) when the store is closed or the task is
/// cancelled.
///
/// Each element is a ``DefaultsHistoryEntry``, as the history gives it: a secret key's value is
/// ``DefaultsHistoryValue/secret(digest:)``, a value over the history's size limit
/// `.tooLargeToKeep`. Changes are what the history records: a transaction of this library is one
/// entry per key (its final value); a raw SQL client's statements are one entry each.
public struct DefaultsChangeFeed: AsyncSequence, Sendable {
    public typealias Element = DefaultsHistoryEntry<SQLiteValue>
    public typealias Failure = any Error

    let core: StoreEngine
    let since: Int64
    let keys: Set<HashedKey>?
    let prefix: String?

    /// Changes read from the file per query; a backlog is read in pages of this many.
    static let pageSize = 512

    /// Creates the iterator, which subscribes to the store's commits on its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self, cursor: since)
    }

    /// Reads the feed's changes: first every kept change after its start, a page at a time,
    /// then each page the store's commits add.
    public struct Iterator: AsyncIteratorProtocol {
        let feed: DefaultsChangeFeed
        var cursor: Int64
        private var buffer: [Element] = []
        private var taken = 0
        private var wakeups: AsyncStream<Void>.AsyncIterator?
        private var cancel: (@Sendable () -> Void)?

        init(feed: DefaultsChangeFeed, cursor: Int64) {
            self.feed = feed
            self.cursor = cursor
        }

        /// The next change, waiting for one to commit when none is pending.
        /// - Returns: the change, or `nil` when the store closed or the task was cancelled.
        /// - Throws: ``DefaultsError`` — `.historyCompacted`, `.historyRewound`, or the errors
        ///   of a read (`.databaseReplaced`, …); the feed ends after one.
        public mutating func next() async throws -> Element? {
            if wakeups == nil {
                // Subscribed before the first read: a commit between that read and the wait
                // leaves a signal behind, so none is missed.
                let (stream, cancel) = feed.core.commitSignal.subscribe()
                wakeups = stream.makeAsyncIterator()
                self.cancel = cancel
            }
            while true {
                if taken < buffer.count {
                    defer { taken += 1 }
                    return buffer[taken]
                }
                if Task.isCancelled || feed.core.isClosed {
                    cancel?()
                    return nil
                }
                let page: (entries: [Element], last: Int64?)
                do {
                    // On the store's thread: a page read is file I/O, kept off the shared pool.
                    page = try await feed.core.onStoreThread { [cursor, feed] in
                        try feed.core.feedPage(after: cursor, limit: DefaultsChangeFeed.pageSize, accepts: feed.accepts)
                    }
                } catch {
                    cancel?()
                    if feed.core.isClosed || error is CancellationError { return nil }
                    throw error
                }
                if let last = page.last {
                    cursor = last
                    buffer = page.entries
                    taken = 0
                    continue
                }
                guard await wakeups?.next() != nil else {
                    cancel?()
                    return nil
                }
            }
        }
    }

    func accepts(_ key: String) -> Bool {
        if let keys, !keys.contains(HashedKey(key)) { return false }
        if let prefix, !key.utf8.starts(with: prefix.utf8) { return false }
        return true
    }
}
