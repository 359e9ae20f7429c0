import Foundation

extension DefaultsStore {
    /// A page of the history: the newest committed changes of `keys` (of every key when nil)
    /// whose sequence is below `before`, newest first. Reading a long history page by page,
    /// each page's last ``DefaultsHistoryEntry/sequence`` as the next `before`, holds one page
    /// in memory at a time.
    ///
    /// ```swift
    /// var before: Int64? = nil
    /// repeat {
    ///     let page = try store.history(keys: nil, limit: 500, before: before)
    ///     for entry in page { print(entry.sequence, entry.key) }
    ///     before = page.count == 500 ? page.last?.sequence : nil
    /// } while before != nil
    /// ```
    ///
    /// - Parameters:
    ///   - keys: the keys to show, or nil for all.
    ///   - limit: at most this many entries.
    ///   - before: only entries with a smaller sequence; nil for the newest.
    /// - Returns: the entries, newest first, as ``history(keys:limit:)-60eht`` returns them.
    /// - Throws: ``DefaultsError`` as ``history(keys:limit:)-60eht`` does.
    public func history(keys: [String]?, limit: Int, before: Int64?) throws -> [DefaultsHistoryEntry<SQLiteValue>] {
        try core.historyEntries(keys: keys, limit: limit, before: before) { $0 }
    }
}
