import Foundation

/// One stored row of a listing (``DefaultsStore/entries(prefix:containing:after:limit:)-d69e``):
/// its key's exact bytes, which name it even when they are not valid UTF-8, and its value as
/// stored.
///
/// ```swift
/// for entry in try store.entries(prefix: "user.42.", limit: 100).entries {
///     print(entry.key ?? "(not UTF-8)", entry.value.storageClass)
/// }
/// ```
public struct DefaultsListedEntry: Sendable, Hashable {
    /// The key's bytes, exactly as stored: the listing's order (by bytes) and the `after` of
    /// the next page.
    public let keyBytes: Data
    /// The row's value as stored.
    public let value: SQLiteValue

    /// Creates an entry, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - keyBytes: the key's bytes.
    ///   - value: the value as stored.
    public init(keyBytes: Data, value: SQLiteValue) {
        self.keyBytes = keyBytes
        self.value = value
    }

    /// The key, or nil when its bytes are not valid UTF-8 (only another SQL client can write
    /// such a key; read, change or remove it with ``DefaultsStore/value(forKeyBytes:)`` and
    /// its siblings).
    public var key: String? { String(validating: keyBytes, as: UTF8.self) }

    /// The key as ``DefaultsStore/entries()-5wpon`` names it: U+FFFD in place of each byte that is
    /// not valid UTF-8. For display only: such a name does not find its row.
    public var name: String { String(decoding: keyBytes, as: UTF8.self) }
}

/// A page of a listing, in key order (by bytes), and where the next one starts.
///
/// ```swift
/// var after: Data? = nil
/// repeat {
///     let page = try store.entries(prefix: "user.", after: after, limit: 500)
///     for entry in page.entries { print(entry.name) }
///     after = page.next
/// } while after != nil
/// ```
public struct DefaultsEntryPage: Sendable, Hashable {
    /// The page's rows, in key order.
    public let entries: [DefaultsListedEntry]
    /// The `after` of the next page (the bytes of this page's last key); nil when this page
    /// is the last one. A page that is exactly full and the last says so: nil, not a cursor to
    /// an empty page.
    public let next: Data?

    /// Creates a page, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - entries: the rows, in key order.
    ///   - next: the next page's `after`, or nil on the last page.
    public init(entries: [DefaultsListedEntry], next: Data?) {
        self.entries = entries
        self.next = next
    }
}
