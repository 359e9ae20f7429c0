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
        var decoded: DecodedValue?
    }

    /// What the cache holds for a key. Not generic: a generic result type would make every
    /// unspecialized `get` instantiate its metadata at run time (`swift_getGenericMetadata`),
    /// which cost more than the lookup itself.
    enum Lookup {
        case miss
        case absent
        case decoded(DecodedValue)
        case stored(SQLiteValue)
    }

    private let entries = Mutex<[String: Entry]>([:])

    func lookup(_ key: String) -> Lookup {
        entries.withLock { entries in
            guard let entry = entries[key] else { return .miss }
            guard let stored = entry.stored else { return .absent }
            if let decoded = entry.decoded { return .decoded(decoded) }
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

    /// Records the rows one commit wrote (each key once); returns those whose value differs
    /// from what was cached before, keys not cached included. One lock for the whole commit.
    func apply(_ writes: [ChangeRecorder.Write]) -> [ChangeRecorder.Write] {
        entries.withLock { entries in
            var changed: [ChangeRecorder.Write] = []
            changed.reserveCapacity(writes.count)
            for write in writes {
                let previous = entries.updateValue(Entry(stored: write.value, decoded: nil), forKey: write.key)
                if let previous, SQLiteValue.isSameRow(previous.stored, write.value) { continue }
                changed.append(write)
            }
            return changed
        }
    }

    func remember<Value: Sendable>(_ key: String, decoded: Value) {
        let box = DecodedValue(decoded)
        entries.withLock { entries in entries[key]?.decoded = box }
    }

    var cachedKeys: [String] { entries.withLock { Array($0.keys) } }
}

