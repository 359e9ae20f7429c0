/// Who made a change that an observer hears about.
public enum DefaultsChangeOrigin: String, Sendable, Hashable {
    /// This `DefaultsStore` object made it.
    case local
    /// Anyone else: another `DefaultsStore` on the same file, another process, or any SQL
    /// client such as the `sqlite3` shell.
    case external
}

/// A committed change of one key, as ``DefaultsStore/observe(_:_:)`` delivers it.
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

    /// Creates a change, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - key: the key's name.
    ///   - newValue: the value after the change.
    ///   - origin: whether this store or someone else made it.
    ///   - writer: who wrote it, if known.
    public init(key: String, newValue: Value, origin: DefaultsChangeOrigin, writer: DefaultsWriter? = nil) {
        self.key = key
        self.newValue = newValue
        self.origin = origin
        self.writer = writer
    }
}

/// A committed change of any key, as ``DefaultsStore/changes()`` delivers it.
public struct DefaultsKeyChange: Sendable, Hashable {
    /// The key's name.
    public let key: String
    /// Whether this store object or someone else made the change.
    public let origin: DefaultsChangeOrigin
    /// The row's new value as stored; `nil` when the row was removed. Named as in
    /// ``DefaultsChange/newValue``.
    public let newValue: SQLiteValue?
    /// Who wrote the change, where known (see ``DefaultsChange/writer``).
    public let writer: DefaultsWriter?

    /// Creates a change, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - key: the key's name.
    ///   - origin: whether this store or someone else made it.
    ///   - newValue: the row's new value, `nil` when removed.
    ///   - writer: who wrote it, if known.
    public init(key: String, origin: DefaultsChangeOrigin, newValue: SQLiteValue?, writer: DefaultsWriter? = nil) {
        self.key = key
        self.origin = origin
        self.newValue = newValue
        self.writer = writer
    }
}
