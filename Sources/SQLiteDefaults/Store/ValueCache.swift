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
            if let decoded = entry.decoded, let value = decoded.value(as: Value.self) { return .decoded(value) }
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

    func remember<Value: Sendable>(_ key: String, decoded: Value) {
        let box = Decoded(decoded)
        entries.withLock { entries in entries[key]?.decoded = box }
    }

    var cachedKeys: [String] { entries.withLock { Array($0.keys) } }
}

/// A decoded value of some type. Checking the box's class by identity and downcasting without
/// a check is far cheaper on the hot read path than a dynamic cast from `any Sendable`.
class DecodedValue: @unchecked Sendable {
    // Sendable proof: no stored state here; the only subclass, `Decoded<Value>`, holds one
    // `let` of a `Sendable` type.

    final func value<Value>(as type: Value.Type) -> Value? {
        guard ObjectIdentifier(Swift.type(of: self)) == ObjectIdentifier(Decoded<Value>.self) else { return nil }
        return unsafeDowncast(self, to: Decoded<Value>.self).value
    }
}

final class Decoded<Value>: DecodedValue, @unchecked Sendable {
    // Sendable proof: created only by `ValueCache.remember`, which requires `Value: Sendable`;
    // the value is an immutable `let`.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
