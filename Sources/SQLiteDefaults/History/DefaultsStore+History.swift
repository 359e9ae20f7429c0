import Foundation

extension DefaultsStore {
    /// TEXT and BLOB values up to this many bytes are kept whole in the history; a larger one
    /// (a 10 MB document, say) is kept by its size alone (``DefaultsHistoryEntry/omittedByteCount``),
    /// so the history costs at most the kept length × this many bytes of file
    /// (``DefaultsHistoryValue/tooLargeToKeep(byteCount:)``).
    public static let historyValueLimit = StoreEngine.historyValueLimit

    /// The key's newest committed changes, newest first, by whoever made them: this process,
    /// another one, a SQL client, the fleet.
    ///
    /// ```swift
    /// for entry in try store.history(for: .timeout, limit: 50) {
    ///     print(entry.sequence, entry.date, entry.value.written.map(String.init) ?? "no value", entry.writer.kind)
    /// }
    /// ```
    ///
    /// A transaction of this library is one entry per key (its final value); a rolled-back
    /// one, or a write of the value already stored, is none. A SQL client's transaction is
    /// invisible to the log's triggers, so its changes may be one entry per statement. Each
    /// entry's ``DefaultsHistoryEntry/value`` says what the change left: the value, or that the
    /// row was removed, that the value was too large to keep, or that it does not decode as
    /// `Value` (written by another client; kept as stored). The file keeps at least its newest ``historyRetention`` changes.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - limit: at most this many entries (default 100).
    /// - Returns: the entries, newest first.
    /// - Throws: ``DefaultsError`` — `.misuse` for a negative limit, `.invalidKey`, `.closed`,
    ///   or a SQLite failure reading the file.
    public func history<Value>(for key: DefaultsKey<Value>, limit: Int = 100) throws -> [DefaultsHistoryEntry<Value>] {
        let codec = key.codec
        return try core.historyEntries(keys: [key.name], limit: limit) { try codec.decode($0) }
    }

    /// The newest committed changes of `keys` (of every key when nil), newest first, with each
    /// value as stored.
    ///
    /// ```swift
    /// for entry in try store.history(limit: 20) {
    ///     print(entry.sequence, entry.key, entry.value.written.map { "\($0)" } ?? "no value", entry.writer.kind)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keys: the keys to show, or nil for all.
    ///   - limit: at most this many entries (default 100).
    /// - Returns: the entries, newest first; each ``DefaultsHistoryEntry/value`` is the value
    ///   as stored, ``DefaultsHistoryValue/removed``, or
    ///   ``DefaultsHistoryValue/tooLargeToKeep(byteCount:)`` (never `.undecodable`).
    /// - Throws: ``DefaultsError`` — `.misuse` for a negative limit, `.invalidKey` for an empty
    ///   name, `.closed`, or a SQLite failure reading the file.
    public func history(keys: [String]? = nil, limit: Int = 100) throws -> [DefaultsHistoryEntry<SQLiteValue>] {
        try core.historyEntries(keys: keys, limit: limit) { $0 }
    }

    /// How many changes the file keeps at least (10,000 unless ``setHistoryRetention(_:)-7h8mf``
    /// said otherwise): a setting of the file, shared by every process that writes it. Older
    /// entries are deleted now and then, by whichever store writes.
    ///
    /// ```swift
    /// print(try store.historyRetention)   // 10000
    /// ```
    ///
    /// A property that reads the file (hence `throws`); it is set with
    /// ``setHistoryRetention(_:)-7h8mf``, because a setter cannot throw.
    /// - Throws: ``DefaultsError`` — `.closed`, or a SQLite failure reading the file.
    public var historyRetention: Int {
        get throws { try core.historyLength() }
    }

    /// Sets how many changes the file keeps at least, for every process that writes it.
    ///
    /// ```swift
    /// try store.setHistoryRetention(100_000)
    /// ```
    ///
    /// - Parameter count: between 100 and 10,000,000.
    /// - Throws: ``DefaultsError`` — `.invalidConfiguration` out of that range, `.readOnly`,
    ///   `.closed`, `.busy`, or a SQLite failure writing the file.
    public func setHistoryRetention(_ count: Int) throws {
        try core.setHistoryLength(count)
    }
}
