#if Observable
/// One persisted property's key, as `@ObservableDefaults` generates it: a recipe that builds
/// the `DefaultsKey` once the run-time prefix is known, and the key it built.
///
/// Generated code only; you never write this yourself. For a property
/// `var name = "Guest"` the macro emits a peer
///
/// ```swift
/// @ObservationIgnored private var _$name = ObservableDefaultsKey { prefix in
///     DefaultsKey(prefix + "name", default: "Guest")
/// }
/// ```
///
/// and `setUpDefaults(store:ignoreExternalChanges:prefix:)` calls ``resolve(prefix:)``.
/// The recipe is a closure so that the key's value type comes from the property's own
/// initializer (no type annotation needed), and so that the `DefaultsKey` initializer
/// that picks the coding (`DefaultsSerializable`, `RawRepresentable` or `Codable`) is chosen
/// where the concrete type is known — the same choice for every prefix.
public struct ObservableDefaultsKey<Value: Sendable> {
    private let makeKey: (_ prefix: String) -> DefaultsKey<Value>
    @usableFromInline var resolved: DefaultsKey<Value>?

    /// A key whose name and default come from `makeKey`, called with the prefix at set-up.
    public init(_ makeKey: @escaping (_ prefix: String) -> DefaultsKey<Value>) {
        self.makeKey = makeKey
    }

    /// Builds the key for `prefix` (the generated init's `prefix:` argument).
    public mutating func resolve(prefix: String) {
        resolved = makeKey(prefix)
    }

    /// The key built by the last ``resolve(prefix:)``, or `nil` before set-up.
    public var key: DefaultsKey<Value>? { resolved }
}
#endif
