import Foundation

/// Listings by prefix and page, for stores with many keys (a server's per-user settings): each
/// page is read by itself, from the key index, in key order (the keys' bytes compared as
/// SQLite compares them), so listing a million keys holds one page at a time.
extension DefaultsStore {
    /// The most rows one page holds, whatever `limit` asks: a larger limit is refused, as a
    /// caller that asks for more keys than this wants ``forEachEntry(prefix:containing:_:)``.
    public static let maximumPageLimit = 100_000

    /// One page of stored rows: those whose key starts with `prefix` and contains `containing`,
    /// sorting after `after`, at most `limit` of them, in key order.
    ///
    /// ```swift
    /// let first = try store.entries(prefix: "user.42.", limit: 50)
    /// let second = try store.entries(prefix: "user.42.", after: first.next, limit: 50)
    /// ```
    ///
    /// Pages are read one at a time, each from one snapshot: a key written between two pages
    /// shows in a later page when it sorts after the cursor, a key removed meanwhile is simply
    /// not there, and no key is listed twice. `after` need not name a stored key (one removed
    /// since the previous page is a cursor like any other).
    ///
    /// - Parameters:
    ///   - prefix: only keys whose UTF-8 starts with it (a prefix that is a whole key lists
    ///     that key and the keys that extend it); empty for every key.
    ///   - containing: only keys whose bytes contain it, ASCII letters matching in either case
    ///     and every other character exactly; nil or empty for no such filter.
    ///   - after: only keys whose bytes sort after these: the previous page's
    ///     ``DefaultsEntryPage/next``; nil for the first page.
    ///   - limit: at most this many rows, from 1 to ``maximumPageLimit``.
    /// - Returns: the rows and the next page's cursor (nil on the last page).
    /// - Throws: ``DefaultsError`` `.misuse` for a limit out of range; otherwise as
    ///   ``entries()-5wpon`` does (`.closed`, `.databaseReplaced`, `.corrupt`, `.ioError`, …).
    public func entries(prefix: String = "", containing: String? = nil, after: Data? = nil, limit: Int) throws -> DefaultsEntryPage {
        try Self.checkPageLimit(limit)
        let read = try core.listingPage(Self.listingQuery(prefix, containing, after), limit: limit)
        let entries = read.rows.map { DefaultsListedEntry(keyBytes: $0.key, value: $0.value) }
        return DefaultsEntryPage(entries: entries, next: read.more ? entries.last?.keyBytes : nil)
    }

    /// ``entries(prefix:containing:after:limit:)-d69e`` for async code: the caller suspends while
    /// the page is read on the store's own thread, never on the cooperative pool or an event
    /// loop.
    ///
    /// ```swift
    /// let page = try await store.entries(prefix: "user.", after: cursor, limit: 500)
    /// ```
    ///
    /// - Parameters: as ``entries(prefix:containing:after:limit:)-d69e``.
    /// - Returns: the rows and the next page's cursor (nil on the last page).
    /// - Throws: as ``entries(prefix:containing:after:limit:)-d69e``.
    public func entries(prefix: String = "", containing: String? = nil, after: Data? = nil, limit: Int) async throws -> DefaultsEntryPage {
        try Self.checkPageLimit(limit)
        return try await onStoreThread { [self] in
            try entries(prefix: prefix, containing: containing, after: after, limit: limit)
        }
    }

    /// Calls `body` with every stored row whose key starts with `prefix` (and contains
    /// `containing`), in key order, from one snapshot of the file, holding one row at a time:
    /// how a tool exports or prints a million keys in constant memory.
    ///
    /// ```swift
    /// try store.forEachEntry(prefix: "user.") { entry in print(entry.name) }
    /// ```
    ///
    /// The store's connection is busy until `body` has seen the last row: `body` must not use
    /// this store (other threads' reads and writes of it wait), so keep it to writing out.
    ///
    /// - Parameters:
    ///   - prefix: as ``entries(prefix:containing:after:limit:)-d69e``.
    ///   - containing: as ``entries(prefix:containing:after:limit:)-d69e``.
    ///   - body: called once per row; what it throws ends the listing and is rethrown.
    /// - Throws: what `body` throws; otherwise as ``entries()-5wpon`` does.
    public func forEachEntry(prefix: String = "", containing: String? = nil,
                             _ body: (DefaultsListedEntry) throws -> Void) throws {
        try core.forEachListed(Self.listingQuery(prefix, containing, nil)) { key, value in
            try body(DefaultsListedEntry(keyBytes: key, value: value))
        }
    }

    private static func listingQuery(_ prefix: String, _ containing: String?, _ after: Data?) -> StoreEngine.ListingQuery {
        StoreEngine.ListingQuery(prefix: Data(prefix.utf8), containing: containing.map { Data($0.utf8) }, after: after)
    }

    private static func checkPageLimit(_ limit: Int) throws {
        guard (1...maximumPageLimit).contains(limit) else {
            throw DefaultsError(.misuse, "a page holds from 1 to \(maximumPageLimit) rows, not \(limit); list everything with forEachEntry(prefix:containing:_:)")
        }
    }
}
