import Synchronization

/// What this store last knew to be in each row, and the value decoded from it, so a hot
/// `get` costs one lock and one dictionary lookup: no SQL, no decoding.
///
/// Coherence: entries change only while the database lock is held — after this store's own
/// commits (with the committed value) and when the external-change monitor finds keys that
/// other connections changed (with the value read back). A read that misses fills the entry
/// under the database lock too, so no read can put back a value older than a commit it
/// raced with.
final class ValueCache: Sendable {
    struct Entry {
        /// The row's value; `nil` when there is no row.
        var stored: SQLiteValue?
        /// The last value decoded from `stored`, of whatever type the last reader asked for.
        var decoded: (any Sendable)?
    }

    enum Lookup<Value> {
        case miss
        case absent
        case decoded(Value)
        case stored(SQLiteValue)
    }

    private let entries = Mutex<[String: Entry]>([:])

    func lookup<Value>(_ key: String, as type: Value.Type) -> Lookup<Value> {
        entries.withLock { entries in
            guard let entry = entries[key] else { return .miss }
            guard let stored = entry.stored else { return .absent }
            // Unwrap first: a nil slot would otherwise "cast" to an Optional `Value` as nil.
            if let decoded = entry.decoded, let value = decoded as? Value { return .decoded(value) }
            return .stored(stored)
        }
    }

    /// The cached row, if this key is cached at all (`.some(nil)` = known to be absent).
    func stored(_ key: String) -> SQLiteValue?? {
        entries.withLock { entries in entries[key].map(\.stored) }
    }

    func contains(_ key: String) -> Bool {
        entries.withLock { $0[key] != nil }
    }

    /// Records the row's new value; returns what was cached before (`nil` if not cached).
    @discardableResult
    func update(_ key: String, stored: SQLiteValue?) -> SQLiteValue?? {
        entries.withLock { entries in
            entries.updateValue(Entry(stored: stored, decoded: nil), forKey: key).map(\.stored)
        }
    }

    func remember(_ key: String, decoded: any Sendable) {
        entries.withLock { entries in entries[key]?.decoded = decoded }
    }

    var cachedKeys: [String] { entries.withLock { Array($0.keys) } }
}
