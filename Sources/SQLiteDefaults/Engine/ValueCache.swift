import Synchronization

/// What this store last knew to be in each row, and the value decoded from it, so a hot
/// `get` costs one lock and one dictionary lookup: no SQL, no decoding.
///
/// It is also what observers last saw: a change is announced when the value read differs
/// from the cached one. While someone observes every key the cache is *complete* (it holds
/// every row, and a missing entry means "no row"), so a full comparison after a restore or a
/// pruned change log can tell every key that differs.
///
/// Coherence: entries change only while the database lock is held — after this store's own
/// commits (with the committed value) and when the external-change check finds keys that
/// other connections changed (with the value read back). A read that misses fills the entry
/// under the database lock too, so no read can put back a value older than a commit it
/// raced with.
final class ValueCache: Sendable {
    struct Entry {
        /// The row's value; `nil` when there is no row (a tombstone).
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

    /// Tombstones of unobserved keys kept at most; past this they are dropped (they only save
    /// a read of a missing key), so a workload of ever-new removed keys stays bounded.
    static let tombstoneLimit = 1_024

    private struct State {
        var entries: [HashedKey: Entry] = [:]
        var tombstones = 0
        /// Every row is in `entries`: a key that is not there has no row.
        var isComplete = false
        /// Keys whose row could not be read (too large for this store): never served from here.
        var unreadable: Set<HashedKey> = []
    }

    private let state = Mutex(State())

    func lookup(_ key: HashedKey) -> Lookup {
        state.withLock { state in
            guard let entry = state.entries[key] else {
                return state.isComplete && !Self.isUnreadable(state, key) ? .absent : .miss
            }
            guard let stored = entry.stored else { return .absent }
            if let decoded = entry.decoded { return .decoded(decoded) }
            return .stored(stored)
        }
    }

    /// The cached row, if this key is known at all (`.some(nil)` = known to be absent).
    func stored(_ key: HashedKey) -> SQLiteValue?? {
        state.withLock { state in
            if let entry = state.entries[key] { return .some(entry.stored) }
            return state.isComplete && !Self.isUnreadable(state, key) ? .some(nil) : nil
        }
    }

    private static func isUnreadable(_ state: State, _ key: HashedKey) -> Bool {
        !state.unreadable.isEmpty && state.unreadable.contains(key)
    }

    func contains(_ key: HashedKey) -> Bool {
        state.withLock { $0.entries[key] != nil || $0.isComplete || $0.unreadable.contains(key) }
    }

    var isComplete: Bool { state.withLock { $0.isComplete } }

    /// Whether the cache knows nothing at all: no entry, not complete, nothing unreadable.
    var isEmpty: Bool { state.withLock { $0.entries.isEmpty && !$0.isComplete && $0.unreadable.isEmpty } }

    /// Records the row's new value; returns what was known before (`nil` if nothing was).
    @discardableResult
    func update(_ key: HashedKey, stored: SQLiteValue?) -> SQLiteValue?? {
        state.withLock { state in Self.update(&state, key, stored) }
    }

    private static func update(_ state: inout State, _ key: HashedKey, _ stored: SQLiteValue?) -> SQLiteValue?? {
        let wasUnreadable = !state.unreadable.isEmpty && state.unreadable.remove(key) != nil
        let previous: Entry?
        if stored == nil && state.isComplete {
            previous = state.entries.removeValue(forKey: key)  // complete: no entry means no row
        } else {
            previous = state.entries.updateValue(Entry(stored: stored, decoded: nil), forKey: key)
            if stored == nil { state.tombstones += 1 }
        }
        if let previous, previous.stored == nil { state.tombstones -= 1 }
        if wasUnreadable { return nil }
        if let previous { return .some(previous.stored) }
        return state.isComplete ? .some(nil) : nil
    }

    /// Records the rows one commit wrote (each key once); returns those whose value differs
    /// from what was known before, keys not known included. One lock for the whole commit.
    func apply(_ writes: [ChangeRecorder.Write]) -> [ChangeRecorder.Write] {
        state.withLock { state in
            var changed: [ChangeRecorder.Write] = []
            changed.reserveCapacity(writes.count)
            for write in writes {
                if case .some(let previous) = Self.update(&state, write.hashedKey, write.value),
                   SQLiteValue.isSameRow(previous, write.value) { continue }
                changed.append(write)
            }
            return changed
        }
    }

    func remember<Value: Sendable>(_ key: HashedKey, decoded: Value) {
        let box = DecodedValue(decoded)
        state.withLock { state in state.entries[key]?.decoded = box }
    }

    /// Forgets a row that could not be read: reads go to the database (and report why).
    func markUnreadable(_ key: HashedKey) {
        state.withLock { state in
            if let previous = state.entries.removeValue(forKey: key), previous.stored == nil { state.tombstones -= 1 }
            state.unreadable.insert(key)
        }
    }

    /// Makes the cache complete: every row of the table, as read now under the database lock.
    func fill(with rows: [(key: String, value: SQLiteValue)]) {
        state.withLock { state in
            var entries: [HashedKey: Entry] = [:]
            entries.reserveCapacity(rows.count)
            for row in rows where row.value != .null {
                let key = HashedKey(row.key)
                if let old = state.entries[key], let stored = old.stored, stored.isSameStoredValue(as: row.value) {
                    entries[key] = old
                } else {
                    entries[key] = Entry(stored: row.value, decoded: nil)
                }
            }
            state.entries = entries
            state.tombstones = 0
            state.unreadable = []
            state.isComplete = true
        }
    }

    /// Drops tombstones once there are more than ``tombstoneLimit``, keeping those of keys
    /// that `isObserved` (an observer's last-seen value must stay known).
    func pruneTombstones(keeping isObserved: (String) -> Bool) {
        state.withLock { state in
            guard state.tombstones > Self.tombstoneLimit else { return }
            state.entries = state.entries.filter { $0.value.stored != nil || isObserved($0.key.name) }
            state.tombstones = state.entries.values.count { $0.stored == nil }
        }
    }

    var tombstoneCount: Int { state.withLock { $0.tombstones } }

    /// Every key the cache knows something about (unreadable ones included).
    var knownKeys: [String] { state.withLock { $0.entries.keys.map(\.name) + $0.unreadable.map(\.name) } }

    func removeAll() {
        state.withLock { $0 = State() }
    }
}
