import Foundation

extension DefaultsStore {
    /// TEXT and BLOB values up to this many bytes are kept whole in the history; a larger one
    /// (a 10 MB document, say) is kept by its size alone (``DefaultsHistoryEntry/omittedByteCount``),
    /// so the history costs at most the kept length × this many bytes of file.
    public static let historyValueLimit = StoreEngine.historyValueLimit

    /// The key's newest committed changes, newest first, by whoever made them: this process,
    /// another one, a SQL client, the fleet.
    ///
    /// ```swift
    /// for entry in try store.history(for: .timeout, limit: 50) {
    ///     print(entry.sequence, entry.date, entry.value.map(String.init) ?? "removed", entry.writer.kind)
    /// }
    /// ```
    ///
    /// A transaction of this library is one entry per key (its final value); a rolled-back
    /// one, or a write of the value already stored, is none. A SQL client's transaction is
    /// invisible to the log's triggers, so its changes may be one entry per statement. A value
    /// that does not decode as `Value` (written by another client) has `value` nil and
    /// `isRemoved` false. The file keeps at least its newest ``historyLength()`` changes.
    ///
    /// - Parameters:
    ///   - key: the key.
    ///   - limit: at most this many entries (default 100).
    /// - Returns: the entries, newest first.
    /// - Throws: ``DefaultsError`` — `.misuse` for a negative limit, `.invalidKey`, `.closed`,
    ///   or a SQLite failure reading the file.
    public func history<Value>(for key: DefaultsKey<Value>, limit: Int = 100) throws -> [DefaultsHistoryEntry<Value>] {
        try core.history(keys: [key.name], limit: limit).map { row in
            DefaultsHistoryEntry(sequence: row.sequence, key: row.key, date: Self.date(row.milliseconds),
                                 value: row.value.flatMap { try? key.codec.decode($0) }, writer: row.writer,
                                 isRemoved: row.isRemoved, omittedByteCount: row.omitted)
        }
    }

    /// The newest committed changes of `keys` (of every key when nil), newest first, with each
    /// value as stored.
    ///
    /// ```swift
    /// for entry in try store.history(limit: 20) {
    ///     print(entry.sequence, entry.key, entry.value.map { "\($0)" } ?? "removed", entry.writer.kind)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keys: the keys to show, or nil for all.
    ///   - limit: at most this many entries (default 100).
    /// - Returns: the entries, newest first; `value` is nil when the row was removed, or when
    ///   its value was too large to keep (``DefaultsHistoryEntry/omittedByteCount``).
    /// - Throws: ``DefaultsError`` — `.misuse` for a negative limit, `.invalidKey` for an empty
    ///   name, `.closed`, or a SQLite failure reading the file.
    public func history(keys: [String]? = nil, limit: Int = 100) throws -> [DefaultsHistoryEntry<SQLiteValue>] {
        try core.history(keys: keys, limit: limit).map { row in
            DefaultsHistoryEntry(sequence: row.sequence, key: row.key, date: Self.date(row.milliseconds),
                                 value: row.value, writer: row.writer, isRemoved: row.isRemoved, omittedByteCount: row.omitted)
        }
    }

    /// How many changes the file keeps at least (10,000 unless ``setHistoryLength(_:)`` said
    /// otherwise): a setting of the file, shared by every process that writes it. Older
    /// entries are deleted now and then, by whichever store writes.
    /// - Returns: the number of changes kept.
    /// - Throws: ``DefaultsError`` — `.closed`, or a SQLite failure reading the file.
    public func historyLength() throws -> Int {
        try core.historyLength()
    }

    /// Sets how many changes the file keeps at least, for every process that writes it.
    ///
    /// ```swift
    /// try store.setHistoryLength(100_000)
    /// ```
    ///
    /// - Parameter count: between 100 and 10,000,000.
    /// - Throws: ``DefaultsError`` — `.invalidConfiguration` out of that range, `.readOnly`,
    ///   `.closed`, `.busy`, or a SQLite failure writing the file.
    public func setHistoryLength(_ count: Int) throws {
        try core.setHistoryLength(count)
    }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
