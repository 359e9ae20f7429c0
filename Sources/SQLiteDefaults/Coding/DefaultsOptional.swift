/// `Optional`, as a protocol: lets the optional initializers of ``DefaultsKey`` and ``Default``
/// be chosen over the non-optional ones for `Optional` values (a generic `<Wrapped>` parameter
/// ranks as no more specific than the plain `Codable` initializer, which would store
/// `Mode?` as JSON instead of its raw value). Only `Optional` conforms; not for other use.
@_documentation(visibility: internal)
public protocol _DefaultsOptional: ExpressibleByNilLiteral {
    /// The wrapped type.
    associatedtype Wrapped
    /// Wraps `_defaultsWrapped` (the optional itself).
    init(_defaultsWrapped: Wrapped?)
    /// The optional itself.
    var _defaultsWrapped: Wrapped? { get }
}

extension Optional: _DefaultsOptional {
    /// The optional itself.
    public init(_defaultsWrapped: Wrapped?) { self = _defaultsWrapped }
    /// The optional itself.
    public var _defaultsWrapped: Wrapped? { self }
}

extension DefaultsCodec where Value: _DefaultsOptional, Value.Wrapped: Sendable {
    /// `nil` is no row (and NULL reads as `nil`); other values use the wrapped type's codec.
    static func optionalValue(_ wrapped: DefaultsCodec<Value.Wrapped>) -> Self {
        Self(
            encode: { value in
                guard let unwrapped = value._defaultsWrapped else { return .null }
                return try wrapped.encode(unwrapped)
            },
            decode: { stored in
                if case .null = stored { return nil }
                return Value(_defaultsWrapped: try wrapped.decode(stored))
            },
            shape: wrapped.shape
        )
    }
}

