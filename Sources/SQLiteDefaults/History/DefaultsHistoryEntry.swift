import Foundation

/// One committed change of a key, as ``DefaultsStore/history(for:limit:)`` returns it.
///
/// ```swift
/// for entry in try store.history(for: .timeout, limit: 5) {
///     print(entry.sequence, entry.date, entry.value.map(String.init) ?? "removed", entry.writer.kind)
/// }
/// ```
public struct DefaultsHistoryEntry<Value: Sendable>: Sendable {
    /// The change's number in the file; later changes have larger numbers.
    public let sequence: Int64
    /// The key's name.
    public let key: String
    /// When the change was committed, to the millisecond (SQLite's clock on the writing
    /// machine, UTC).
    public let date: Date
    /// The value written; `nil` when the row was removed (``isRemoved``), when the value was
    /// too large to keep (``omittedByteCount``), or, in the typed form, when it does not
    /// decode as `Value`.
    public let value: Value?
    /// Who made the change.
    public let writer: DefaultsWriter
    /// Whether the change removed the row.
    public let isRemoved: Bool
    /// For a TEXT or BLOB value over ``DefaultsStore/historyValueLimit`` bytes: its size. The
    /// history keeps the size, not the value, so the file stays bounded.
    public let omittedByteCount: Int?

    /// Creates an entry, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - sequence: the change's number.
    ///   - key: the key's name.
    ///   - date: when it was committed.
    ///   - value: the value written, `nil` when removed.
    ///   - writer: who made it.
    ///   - isRemoved: whether the row was removed (defaults to `value == nil` with no `omittedByteCount`).
    ///   - omittedByteCount: the size of a value too large to keep.
    public init(sequence: Int64, key: String, date: Date, value: Value?, writer: DefaultsWriter,
                isRemoved: Bool? = nil, omittedByteCount: Int? = nil) {
        self.sequence = sequence
        self.key = key
        self.date = date
        self.value = value
        self.writer = writer
        self.isRemoved = isRemoved ?? (value == nil && omittedByteCount == nil)
        self.omittedByteCount = omittedByteCount
    }
}

extension DefaultsHistoryEntry: Equatable where Value: Equatable {}
extension DefaultsHistoryEntry: Hashable where Value: Hashable {}
