/// One stored row, as ``DefaultsStore/entries()-5wpon`` lists it: the key's name and its value as
/// stored.
///
/// ```swift
/// for entry in try store.entries() {
///     print(entry.key, entry.value.storageClass)
/// }
/// ```
///
/// A struct rather than a tuple, so that a later release can add a field without breaking
/// code that reads these two.
public struct DefaultsEntry: Sendable, Hashable {
    /// The key's name (U+FFFD in place of bytes that are not valid UTF-8; see
    /// ``DefaultsStore/keysNotValidUTF8()``).
    public let key: String
    /// The row's value as stored.
    public let value: SQLiteValue

    /// Creates an entry, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - key: the key's name.
    ///   - value: the value as stored.
    public init(key: String, value: SQLiteValue) {
        self.key = key
        self.value = value
    }
}
