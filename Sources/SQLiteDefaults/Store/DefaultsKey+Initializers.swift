// One initializer per combination of the three ways a type can be coded, so that the
// compiler always finds a single most specific one. Precedence: DefaultsSerializable,
// then RawRepresentable (raw value), then Codable (JSON). `[Int]` is both a collection of
// built-ins and Codable: the combined overloads below settle that ambiguity.

extension DefaultsKey {
    /// A key for a ``DefaultsSerializable`` value (every built-in type).
    /// - Parameters:
    ///   - name: the row's key; any non-empty string.
    ///   - defaultValue: what reads return while the row does not exist.
    ///   - summary: what the key is for, recorded when it is declared
    ///     (`DefaultsStore.declare(_:)`) and shown by `prefs describe`.
    ///   - secret: whether its value is a secret (an API token, a password): once declared, the
    ///     history keeps only a keyed digest of each value, and the console, `prefs list`,
    ///     `watch`, `history` and `export` show it masked. Reads return it as usual.
    public convenience init(_ name: String, default defaultValue: Value, summary: String? = nil, secret: Bool = false) where Value: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .serializable(), summary: summary, isSecret: secret)
    }

    /// A key for a `RawRepresentable` value, stored as its raw value (e.g. a `String` enum).
    public convenience init(_ name: String, default defaultValue: Value, summary: String? = nil, secret: Bool = false)
    where Value: RawRepresentable, Value.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .rawValue(), summary: summary, isSecret: secret)
    }

    /// A key for a `Codable` value, stored as JSON text.
    public convenience init(_ name: String, default defaultValue: Value, summary: String? = nil, secret: Bool = false) where Value: Codable {
        self.init(name: name, defaultValue: defaultValue, codec: .json(), summary: summary, isSecret: secret)
    }

    /// A key for a type that is both serializable and `Codable`: uses ``DefaultsSerializable``.
    public convenience init(_ name: String, default defaultValue: Value, summary: String? = nil, secret: Bool = false) where Value: DefaultsSerializable & Codable {
        self.init(name: name, defaultValue: defaultValue, codec: .serializable(), summary: summary, isSecret: secret)
    }

    /// A key for a type that is both serializable and `RawRepresentable`: uses ``DefaultsSerializable``.
    public convenience init(_ name: String, default defaultValue: Value, summary: String? = nil, secret: Bool = false)
    where Value: DefaultsSerializable & RawRepresentable, Value.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .serializable(), summary: summary, isSecret: secret)
    }

    /// A key for a type that is both `RawRepresentable` and `Codable`: stored as its raw value.
    public convenience init(_ name: String, default defaultValue: Value, summary: String? = nil, secret: Bool = false)
    where Value: RawRepresentable & Codable, Value.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .rawValue(), summary: summary, isSecret: secret)
    }

    /// A key for a type that is serializable, `RawRepresentable` and `Codable`: uses ``DefaultsSerializable``.
    public convenience init(_ name: String, default defaultValue: Value, summary: String? = nil, secret: Bool = false)
    where Value: DefaultsSerializable & RawRepresentable & Codable, Value.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .serializable(), summary: summary, isSecret: secret)
    }
}

// Optional keys: `DefaultsKey<Profile?>("profile")` defaults to nil. Setting nil removes the row.

extension DefaultsKey {
    /// A key for an optional ``DefaultsSerializable`` value; `nil` unless you give a default.
    public convenience init(_ name: String, default defaultValue: Value = nil, summary: String? = nil, secret: Bool = false)
    where Value: _DefaultsOptional & DefaultsSerializable, Value.Wrapped: DefaultsSerializable & Sendable {
        self.init(name: name, defaultValue: defaultValue, codec: .optionalValue(.serializable()), summary: summary, isSecret: secret)
    }

    /// A key for an optional `RawRepresentable` value; `nil` unless you give a default.
    public convenience init(_ name: String, default defaultValue: Value = nil, summary: String? = nil, secret: Bool = false)
    where Value: _DefaultsOptional, Value.Wrapped: RawRepresentable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .optionalValue(.rawValue()), summary: summary, isSecret: secret)
    }

    /// A key for an optional `Codable` value, stored as JSON; `nil` unless you give a default.
    public convenience init(_ name: String, default defaultValue: Value = nil, summary: String? = nil, secret: Bool = false)
    where Value: _DefaultsOptional & Codable, Value.Wrapped: Codable & Sendable {
        self.init(name: name, defaultValue: defaultValue, codec: .optionalValue(.json()), summary: summary, isSecret: secret)
    }

    /// A key for an optional value that is serializable and `Codable`: uses ``DefaultsSerializable``.
    public convenience init(_ name: String, default defaultValue: Value = nil, summary: String? = nil, secret: Bool = false)
    where Value: _DefaultsOptional & DefaultsSerializable & Codable, Value.Wrapped: DefaultsSerializable & Codable & Sendable {
        self.init(name: name, defaultValue: defaultValue, codec: .optionalValue(.serializable()), summary: summary, isSecret: secret)
    }

    /// A key for an optional value that is serializable and `RawRepresentable`: uses ``DefaultsSerializable``.
    public convenience init(_ name: String, default defaultValue: Value = nil, summary: String? = nil, secret: Bool = false)
    where Value: _DefaultsOptional & DefaultsSerializable,
          Value.Wrapped: DefaultsSerializable & RawRepresentable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .optionalValue(.serializable()), summary: summary, isSecret: secret)
    }

    /// A key for an optional value that is `RawRepresentable` and `Codable`: stored as its raw value.
    public convenience init(_ name: String, default defaultValue: Value = nil, summary: String? = nil, secret: Bool = false)
    where Value: _DefaultsOptional & Codable,
          Value.Wrapped: RawRepresentable & Codable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .optionalValue(.rawValue()), summary: summary, isSecret: secret)
    }

    /// A key for an optional value that is serializable, `RawRepresentable` and `Codable`: uses ``DefaultsSerializable``.
    public convenience init(_ name: String, default defaultValue: Value = nil, summary: String? = nil, secret: Bool = false)
    where Value: _DefaultsOptional & DefaultsSerializable & Codable,
          Value.Wrapped: DefaultsSerializable & RawRepresentable & Codable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(name: name, defaultValue: defaultValue, codec: .optionalValue(.serializable()), summary: summary, isSecret: secret)
    }
}
