/// What a file says about one key: its type, default, summary and allowed values, as kept in
/// table `defaults_schema` and enforced by the database for every client.
///
/// A typed key makes its declaration itself (`DefaultsStore.declare(_:)`);
/// tools that know no Swift type build one by hand:
///
/// ```swift
/// try store.declare(DefaultsDeclaration(key: "timeout", type: .int, defaultValue: .integer(30),
///                                       summary: "Request timeout, in seconds"))
/// ```
public struct DefaultsDeclaration: Sendable, Hashable {
    /// The key, exactly as in the `defaults` table.
    public var key: String
    /// The key's type.
    public var type: DefaultsValueKind
    /// The Swift type that declared the key (such as `"Int"` or `"Theme"`), or `nil` when it was
    /// declared without one (by `prefs declare`, or by SQL).
    public var swiftType: String?
    /// The default as it would be stored; `nil` when there is none (an `Optional` key's `nil`).
    public var defaultValue: SQLiteValue?
    /// A sentence that says what the key is for.
    public var summary: String?
    /// The only raw values the key may hold (as SQL's `CAST(value AS TEXT)` writes them), for a
    /// `CaseIterable` `RawRepresentable` value; `nil` for any value of ``type``.
    public var allowedValues: [String]?
    /// Whether the key's value is a secret. Its value is then kept in the `defaults` table
    /// alone: each history entry keeps that it changed and a keyed digest (equal values have
    /// equal digests; the digest's key is the file's own, so the value cannot be guessed from
    /// it without the file), and every output but a read — the console, `prefs list`, `watch`,
    /// `history`, `describe`, `export` without `--include-secrets`, the configuration
    /// provider's snapshot — masks it. Declaring a key secret scrubs the values of its earlier
    /// history entries in the same transaction. The fleet's table carries the value: every
    /// machine must have it.
    public var isSecret: Bool

    /// A declaration.
    /// - Parameters:
    ///   - key: the key; any non-empty string.
    ///   - type: the key's type.
    ///   - swiftType: the Swift type's name, if any.
    ///   - defaultValue: the default as stored, if any; it must fit `type` and `allowedValues`.
    ///   - summary: what the key is for.
    ///   - allowedValues: the only raw values allowed, if the key has such a list.
    ///   - isSecret: whether its value is a secret (see ``isSecret``).
    public init(key: String, type: DefaultsValueKind, swiftType: String? = nil, defaultValue: SQLiteValue? = nil,
                summary: String? = nil, allowedValues: [String]? = nil, isSecret: Bool = false) {
        self.key = key
        self.type = type
        self.swiftType = swiftType
        self.defaultValue = defaultValue
        self.summary = summary
        self.allowedValues = allowedValues
        self.isSecret = isSecret
    }

    /// Whether the database accepts `value` for this key: the right storage class and content
    /// for ``type`` (``DefaultsValueKind/accepts(_:)``), and one of ``allowedValues`` if any.
    ///
    /// Allowed values are compared byte for byte, as SQL compares text: `"e\u{301}"` (e and a
    /// combining acute accent) is not `"é"`, although Swift's `==` finds them equal.
    /// - Parameter value: a value as it is or would be stored.
    /// - Returns: whether a write of `value` to ``key`` would be accepted.
    public func accepts(_ value: SQLiteValue) -> Bool {
        guard type.accepts(value) else { return false }
        guard let allowedValues else { return true }
        guard let text = value.castText else { return false }
        return allowedValues.contains { $0.utf8.elementsEqual(text.utf8) }
    }

    /// Why `value` is refused, in the words of the database's own message, or `nil` when it is
    /// accepted.
    func refusal(of value: SQLiteValue, origin: String = "value") -> String? {
        guard !accepts(value) else { return nil }
        let lead = "declared key \"\(key)\" is \(type), so "
        if case .null = value { return lead + "a null \(origin) is refused (delete the row to unset the key)" }
        if !type.classMatches(value) {
            return lead + "a \(value.storageClass) \(origin) is refused"
        }
        switch (type, value) {
        case (.bool, .integer(let number)): return lead + "the \(origin) \(isSecret ? "given" : String(number)) is refused (0 or 1 only)"
        case (.json, _): return lead + "a \(origin) that is not valid JSON is refused"
        default:
            // A secret's value is never quoted: error messages end up in logs.
            let shown = isSecret ? "given" : value.castText ?? value.storageClass
            return lead + "the \(origin) \(shown) is refused (allowed: \((allowedValues ?? []).joined(separator: ", ")))"
        }
    }
}

extension DefaultsValueKind {
    /// Whether the value's storage class is one this kind allows, whatever its content.
    func classMatches(_ value: SQLiteValue) -> Bool {
        switch (self, value) {
        case (.bool, .integer), (.int, .integer): true
        case (.double, .real), (.double, .integer), (.date, .real), (.date, .integer): true
        case (.string, .text), (.string, .invalidUTF8Text), (.url, .text), (.url, .invalidUTF8Text): true
        case (.json, .text), (.json, .invalidUTF8Text): true
        case (.data, .blob): true
        default: false
        }
    }
}
