import Foundation

/// One committed change of a key, as ``DefaultsStore/history(for:limit:)-61zvt`` returns it.
///
/// ```swift
/// for entry in try store.history(for: .timeout, limit: 5) {
///     switch entry.value {
///     case .value(let timeout): print(entry.sequence, entry.date, "set to", timeout)
///     case .removed: print(entry.sequence, entry.date, "removed")
///     case .tooLargeToKeep(let byteCount): print(entry.sequence, "set to \(byteCount) bytes, not kept")
///     case .undecodable(let stored): print(entry.sequence, "set to", stored.storageClass, "that is no timeout")
///     case .secret: print(entry.sequence, "changed (a secret)")
///     }
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
    /// What the change left: the value written, or why there is none (the row was removed, the
    /// value was too large to keep, or, in the typed form, it does not decode as `Value`).
    public let value: DefaultsHistoryValue<Value>
    /// Who made the change.
    public let writer: DefaultsWriter

    /// Whether the change removed the row (``value`` is ``DefaultsHistoryValue/removed``).
    public var isRemoved: Bool { value.isRemoved }
    /// For a TEXT or BLOB value over ``DefaultsStore/historyValueLimit`` bytes: its size
    /// (``value`` is ``DefaultsHistoryValue/tooLargeToKeep(byteCount:)``); otherwise `nil`.
    public var omittedByteCount: Int? { value.omittedByteCount }

    /// Creates an entry, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - sequence: the change's number.
    ///   - key: the key's name.
    ///   - date: when it was committed.
    ///   - value: what the change left.
    ///   - writer: who made it.
    public init(sequence: Int64, key: String, date: Date, value: DefaultsHistoryValue<Value>, writer: DefaultsWriter) {
        self.sequence = sequence
        self.key = key
        self.date = date
        self.value = value
        self.writer = writer
    }
}

extension DefaultsHistoryEntry: Equatable where Value: Equatable {}
extension DefaultsHistoryEntry: Hashable where Value: Hashable {}

/// What a change in the history left: the value it wrote, or which of the four reasons
/// there is none.
///
/// ```swift
/// if case .value(let timeout) = entry.value { print("was", timeout) }
/// entry.value.written   // the value, or nil for the other four cases
/// ```
public enum DefaultsHistoryValue<Value: Sendable>: Sendable {
    /// The change wrote this value.
    case value(Value)
    /// The change removed the row.
    case removed
    /// The change wrote a TEXT or BLOB value over ``DefaultsStore/historyValueLimit`` bytes:
    /// the history keeps its size, not the value, so the file stays bounded.
    case tooLargeToKeep(byteCount: Int)
    /// The change wrote a value that does not decode as `Value` (another client wrote another
    /// type); here as stored. Only the typed ``DefaultsStore/history(for:limit:)-61zvt`` gives it.
    case undecodable(SQLiteValue)
    /// The change wrote a value of a secret key (``DefaultsDeclaration/isSecret``): the history
    /// keeps that it changed, and, when this library wrote it, `digest` — HMAC-SHA-256 of the
    /// key and the value under the file's own random key, as hex. Two entries of one key with
    /// equal digests wrote equal values; entries of two keys never share a digest, so writing
    /// guesses to one secret key tells nothing of another's value; and the value cannot be
    /// found from its digest without the file. `nil` when another SQL client wrote the value
    /// (the triggers have no keyed hash of their own).
    case secret(digest: String?)

    /// The value written, or `nil` when the row was removed, the value was too large to keep or
    /// is a secret, or it does not decode.
    public var written: Value? {
        if case .value(let value) = self { value } else { nil }
    }

    /// Whether the change removed the row.
    public var isRemoved: Bool {
        if case .removed = self { true } else { false }
    }

    /// Whether the change wrote a secret's value, which the history does not keep.
    public var isSecret: Bool {
        if case .secret = self { true } else { false }
    }

    /// The size of a value too large to keep; `nil` in the other cases.
    public var omittedByteCount: Int? {
        if case .tooLargeToKeep(let byteCount) = self { byteCount } else { nil }
    }
}

extension DefaultsHistoryValue: Equatable where Value: Equatable {}
extension DefaultsHistoryValue: Hashable where Value: Hashable {}
