/// A typed key: the name of a row in the `defaults` table, the type stored there, and the
/// value read when the row is missing.
///
/// ```swift
/// extension DefaultsKeys {
///     static let count   = DefaultsKey<Int>("count", default: 0)
///     static let theme   = DefaultsKey<Theme>("theme", default: .light)  // RawRepresentable
///     static let profile = DefaultsKey<Profile?>("profile")               // Codable, default nil
/// }
/// ```
///
/// Names are any non-empty string; dots, `@`, spaces and Unicode are ordinary characters. A
/// name is its exact UTF-8 bytes, as SQLite compares it: `"caf\u{E9}"` and `"cafe\u{301}"`,
/// equal as Swift strings, name two rows.
/// The empty name is refused when the key is used, with ``DefaultsError/Code/invalidKey``.
///
/// A summary (`DefaultsKey<Int>("timeout", default: 30, summary: "Request timeout, in seconds")`)
/// documents the key where operators look: `prefs describe` and the `defaults_schema` table,
/// once the key is declared.
///
/// How the value is coded is chosen when the key is created, by the initializer that
/// matches the type: ``DefaultsSerializable`` first, then `RawRepresentable` (stored as its
/// raw value), then `Codable` (stored as JSON text).
public final class DefaultsKey<Value: Sendable>: DefaultsKeys, @unchecked Sendable {
    // Sendable proof: every stored property is a `let` of a Sendable type
    // (HashedKey, Value: Sendable, DefaultsCodec is Sendable); the superclass has no state.

    /// The row's key in the `defaults` table.
    public var name: String { hashedName.name }
    /// The name with its hash, computed once: what the value cache looks up.
    let hashedName: HashedKey
    /// The value a read returns while no row exists (and when a stored row cannot be decoded,
    /// for the non-throwing subscript).
    public let defaultValue: Value
    let codec: DefaultsCodec<Value>
    /// What the key is for, in one sentence: recorded with its declaration
    /// (`DefaultsStore.declare(_:)`) and shown by
    /// `prefs describe`; `nil` when none was given.
    public let summary: String?
    /// Whether the key's value is a secret: declared so (`DefaultsStore.declare(_:)`), its
    /// history keeps a keyed digest instead of each value, and every output but a read masks it
    /// (see ``DefaultsDeclaration/isSecret``).
    public let isSecret: Bool

    init(name: String, defaultValue: Value, codec: DefaultsCodec<Value>, summary: String? = nil, isSecret: Bool = false) {
        self.hashedName = HashedKey(name)
        self.defaultValue = defaultValue
        self.codec = codec
        self.summary = summary
        self.isSecret = isSecret
        super.init()
    }
}

extension DefaultsKey: CustomStringConvertible {
    public var description: String { "DefaultsKey<\(Value.self)>(\"\(name)\")" }
}
