import Foundation

/// The history's engine half: the log's rows (``HistoryLog/Row``) made into the public
/// ``DefaultsHistoryEntry``, so the public face never names the log.
extension StoreEngine {
    /// The newest `limit` entries of `keys` (all keys when nil), older than `before` when given,
    /// each value decoded by `decode`.
    func historyEntries<Value>(keys: [String]?, limit: Int, before: Int64? = nil,
                               decode: (SQLiteValue) throws -> Value) throws -> [DefaultsHistoryEntry<Value>] {
        try history(keys: keys, limit: limit, before: before).map { Self.historyEntry($0, decode: decode) }
    }

    /// A row of the log as an entry, its value decoded by `decode`.
    static func historyEntry<Value>(_ row: HistoryLog.Row, decode: (SQLiteValue) throws -> Value) -> DefaultsHistoryEntry<Value> {
        let value: DefaultsHistoryValue<Value>
        if row.isRemoved {
            value = .removed
        } else if row.isSecret {
            value = .secret(digest: row.sealed.flatMap(SecretSeal.digest))
        } else if let omitted = row.omitted {
            value = .tooLargeToKeep(byteCount: omitted)
        } else if let stored = row.value {
            do {
                value = .value(try decode(stored))
            } catch {
                value = .undecodable(stored)
            }
        } else {
            value = .removed
        }
        return DefaultsHistoryEntry(sequence: row.sequence, key: row.key,
                                    date: Date(timeIntervalSince1970: Double(row.milliseconds) / 1000),
                                    value: value, writer: row.writer)
    }
}
