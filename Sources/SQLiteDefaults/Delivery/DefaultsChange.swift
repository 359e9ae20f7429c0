/// Who made a change that an observer hears about.
public enum DefaultsChangeOrigin: String, Sendable, Hashable {
    /// This `DefaultsStore` object made it.
    case local
    /// Anyone else: another `DefaultsStore` on the same file, another process, or any SQL
    /// client such as the `sqlite3` shell.
    case external
}

/// A committed change of one key, typed: the key's new value as `Value`. Delivered by
/// ``DefaultsStore/observe(_:_:)`` (closure) and ``DefaultsStore/changes(_:)`` (sequence).
///
/// ```swift
/// for await change in store.changes(.theme) {
///     print(change.key, change.newValue, change.origin)
/// }
/// ```
///
/// Its untyped sibling, for changes of any key, is ``AnyDefaultsChange``: the same properties,
/// with the new value as stored.
public struct DefaultsChange<Value: Sendable>: Sendable {
    /// The key's name.
    public let key: String
    /// The value after the change: the key's default when the row was removed (or when the
    /// new row cannot be decoded as `Value`).
    public let newValue: Value
    /// Whether this store object or someone else made the change.
    public let origin: DefaultsChangeOrigin
    /// Who wrote the change, where known: this process for `.local` changes, the change
    /// log's writer for `.external` ones; `nil` when the store compared every key instead of
    /// reading the log (after a restore, or when it fell behind a pruned log).
    public let writer: DefaultsWriter?
    /// The changes the sequence left out just before this one because its consumer fell more
    /// than ``DefaultsStore/changesBufferLimit`` changes behind; `nil` when none were (always
    /// `nil` for the closure form, which misses nothing).
    public let missedBefore: DefaultsMissedChanges?

    /// Creates a change, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - key: the key's name.
    ///   - newValue: the value after the change.
    ///   - origin: whether this store or someone else made it.
    ///   - writer: who wrote it, if known.
    ///   - missedBefore: the changes left out just before it, if any.
    public init(key: String, newValue: Value, origin: DefaultsChangeOrigin, writer: DefaultsWriter? = nil,
                missedBefore: DefaultsMissedChanges? = nil) {
        self.key = key
        self.newValue = newValue
        self.origin = origin
        self.writer = writer
        self.missedBefore = missedBefore
    }

    /// This change, saying that `missed` changes were left out before it.
    func missing(_ missed: DefaultsMissedChanges) -> Self {
        Self(key: key, newValue: newValue, origin: origin, writer: writer, missedBefore: missed)
    }
}

extension DefaultsChange: Equatable where Value: Equatable {}
extension DefaultsChange: Hashable where Value: Hashable {}

/// A committed change of any key, untyped: the row's new value as stored. Delivered by
/// ``DefaultsStore/observe(_:)`` (closure) and ``DefaultsStore/changes()`` (sequence), which
/// hear every key.
///
/// ```swift
/// for await change in store.changes() {
///     print(change.key, change.newValue?.storageClass ?? "removed", change.origin)
/// }
/// ```
///
/// The typed form, for one key, is ``DefaultsChange``; both name the new value `newValue`.
public struct AnyDefaultsChange: Sendable, Hashable {
    /// The key's name.
    public let key: String
    /// The row's new value as stored; `nil` when the row was removed.
    public let newValue: SQLiteValue?
    /// Whether this store object or someone else made the change.
    public let origin: DefaultsChangeOrigin
    /// Who wrote the change, where known (see ``DefaultsChange/writer``).
    public let writer: DefaultsWriter?
    /// The changes the sequence left out just before this one because its consumer fell more
    /// than ``DefaultsStore/changesBufferLimit`` changes behind; `nil` when none were (always
    /// `nil` for the closure forms, which miss nothing).
    public let missedBefore: DefaultsMissedChanges?

    /// Creates a change, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - key: the key's name.
    ///   - newValue: the row's new value, `nil` when removed.
    ///   - origin: whether this store or someone else made it.
    ///   - writer: who wrote it, if known.
    ///   - missedBefore: the changes left out just before it, if any.
    public init(key: String, newValue: SQLiteValue?, origin: DefaultsChangeOrigin, writer: DefaultsWriter? = nil,
                missedBefore: DefaultsMissedChanges? = nil) {
        self.key = key
        self.newValue = newValue
        self.origin = origin
        self.writer = writer
        self.missedBefore = missedBefore
    }

    /// This change, saying that `missed` changes were left out before it.
    func missing(_ missed: DefaultsMissedChanges) -> Self {
        Self(key: key, newValue: newValue, origin: origin, writer: writer, missedBefore: missed)
    }
}
