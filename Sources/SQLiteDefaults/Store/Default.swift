/// One key of a store, declared once and read and written like a plain property — the shape
/// of SwiftUI's `@AppStorage`, for servers and command-line tools.
///
/// Name the key and its default inline; without a `store:` the property lives in
/// ``DefaultsStore/standard``:
///
/// ```swift
/// struct Settings {
///     @Default("username") var username = "Anonymous"       // the standard store
///     @Default("theme") var theme: Theme = .light            // RawRepresentable: its raw value
///     @Default("selections") var selections = [3, 4, 5]      // collections are built in
///     @Default("profile") var profile: Profile?              // Optional: nil by default
///     @Default("launches", store: store) var launches = 0    // a store of your choice
///     @Default(.name, store: store) var name                 // a typed DefaultsKey
/// }
/// enum Configuration {
///     static let name = Default(wrappedValue: "fatbobman", "name")   // declared centrally
/// }
/// Configuration.name.wrappedValue = "Ada"
/// ```
///
/// A property declared without a store finds its store each time it is read or written:
/// the one that ``DefaultsStore/withStandard(_:_:)`` gives the current task, otherwise the
/// process's standard store. So a property declared outside a `withStandard` block still
/// reads and writes the block's store inside it.
///
/// Writes go through the non-throwing subscript (``DefaultsStore/subscript(_:)``): a failure
/// is logged and reported on the store's ``DefaultsStore/reportedErrors()`` and
/// ``DefaultsStore/lastReportedError``, never dropped. No setter needs `mutating`. The
/// projected value (`$username`) is the wrapper itself, for observing the key.
///
/// How the value is coded is chosen when the property is declared, as for ``DefaultsKey``:
/// ``DefaultsSerializable`` (every built-in type and collections of them) first, then
/// `RawRepresentable` (stored as its raw value, even when the type is also `Codable`), then
/// `Codable` (stored as JSON text).
@propertyWrapper
public struct Default<Value: Sendable>: Sendable {
    /// The key read and written.
    public let key: DefaultsKey<Value>
    /// The store named at declaration, or nil for "the standard store at the time of access".
    private let explicitStore: DefaultsStore?

    /// The store this property reads and writes right now: the one it was declared with, or
    /// else ``DefaultsStore/standard`` as the current task sees it.
    ///
    /// ```swift
    /// @Default("count") var count = 0
    /// try DefaultsStore.withStandard(testStore) {
    ///     assert(_count.store === testStore)
    /// }
    /// ```
    public var store: DefaultsStore { explicitStore ?? DefaultsStore.standard }

    /// Binds the property to a typed key, in `store` or, when `store` is nil, in the standard
    /// store of each access.
    ///
    /// ```swift
    /// extension DefaultsKeys { static let name = DefaultsKey<String>("name", default: "Guest") }
    /// @Default(.name, store: store) var name
    /// @Default(.name) var standardName    // DefaultsStore.standard
    /// ```
    public init(_ key: DefaultsKey<Value>, store: DefaultsStore? = nil) {
        self.key = key
        self.explicitStore = store
    }

    /// The stored value (or the key's default); setting writes it durably.
    ///
    /// Never throws: a value that cannot be read gives the default, and a failed write is
    /// logged and reported on ``DefaultsStore/reportedErrors()`` of ``store``.
    public var wrappedValue: Value {
        get { store[key] }
        nonmutating set { store[key] = newValue }
    }

    /// `$property`: the wrapper itself, to observe the key.
    ///
    /// ```swift
    /// let token = $username.observe { change in print(change.newValue) }
    /// for await name in $username.updates { print(name) }
    /// ```
    public var projectedValue: Default<Value> { self }

    /// Calls `handler` after every committed change of the key in ``store`` (resolved now);
    /// see ``DefaultsStore/observe(_:_:)``.
    ///
    /// ```swift
    /// let token = $username.observe { change in print(change.newValue, change.origin) }
    /// ```
    ///
    /// - Returns: a token; observation lasts until it is cancelled or deallocated.
    public func observe(_ handler: @escaping @Sendable (DefaultsChange<Value>) -> Void) -> DefaultsObservation {
        store.observe(key, handler)
    }

    /// The current value, then every change, from ``store`` (resolved now); see
    /// ``DefaultsStore/updates(_:initial:)``.
    ///
    /// ```swift
    /// for await name in $username.updates { print(name) }
    /// ```
    public var updates: AsyncStream<Value> { store.updates(key) }
}

// `@Default("key") var x = value`: one initializer per combination of the three ways a type
// can be coded, so that the compiler always finds a single most specific one (`[Int]` is both
// serializable and Codable; an enum can be both RawRepresentable and Codable). Each names its
// codec itself rather than going through DefaultsKey's overloads.

extension Default {
    /// `@Default("name") var name = "Guest"` for a ``DefaultsSerializable`` value (every built-in
    /// type): the key `name`, `wrappedValue` as its default.
    ///
    /// ```swift
    /// @Default("username") var username = "Anonymous"
    /// @Default("launches", store: store) var launches = 0
    /// static let name = Default(wrappedValue: "fatbobman", "name")
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: what reads return while the key has no row.
    ///   - name: the row's key; any non-empty string (an empty one is reported when used).
    ///   - store: the store to use, or nil (the default) for ``DefaultsStore/standard`` at each access.
    public init(wrappedValue: Value, _ name: String, store: DefaultsStore? = nil) where Value: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .serializable()), store: store)
    }

    /// `@Default("theme") var theme: Theme = .light` for a `RawRepresentable` value, stored as
    /// its raw value. Parameters as for the ``DefaultsSerializable`` form above.
    public init(wrappedValue: Value, _ name: String, store: DefaultsStore? = nil)
    where Value: RawRepresentable, Value.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .rawValue()), store: store)
    }

    /// `@Default("account") var account = Profile(name: "Guest")` for a `Codable` value,
    /// stored as JSON text.
    public init(wrappedValue: Value, _ name: String, store: DefaultsStore? = nil) where Value: Codable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .json()), store: store)
    }

    /// A value that is serializable and `Codable` (`[3, 4, 5]`, `URL`): uses ``DefaultsSerializable``.
    public init(wrappedValue: Value, _ name: String, store: DefaultsStore? = nil) where Value: DefaultsSerializable & Codable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .serializable()), store: store)
    }

    /// A value that is serializable and `RawRepresentable`: uses ``DefaultsSerializable``.
    public init(wrappedValue: Value, _ name: String, store: DefaultsStore? = nil)
    where Value: DefaultsSerializable & RawRepresentable, Value.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .serializable()), store: store)
    }

    /// A value that is `RawRepresentable` and `Codable` (`enum Theme: String, Codable`):
    /// stored as its raw value.
    public init(wrappedValue: Value, _ name: String, store: DefaultsStore? = nil)
    where Value: RawRepresentable & Codable, Value.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .rawValue()), store: store)
    }

    /// A value that is serializable, `RawRepresentable` and `Codable`: uses ``DefaultsSerializable``.
    public init(wrappedValue: Value, _ name: String, store: DefaultsStore? = nil)
    where Value: DefaultsSerializable & RawRepresentable & Codable, Value.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .serializable()), store: store)
    }
}

// Optionals: `@Default("profile") var profile: Profile?` is nil by default; setting nil removes
// the row, whichever way the wrapped type is coded.
//
// These initializers constrain `Value` through `_DefaultsOptional` (which only `Optional`
// adopts) instead of a generic `<Wrapped>` parameter, and repeat the constraints `Optional`
// then meets (`Value: Codable`, `Value: DefaultsSerializable`). That makes each strictly more
// specific than the non-optional initializer it competes with, so `@Default("mode") var mode:
// Mode? = .fast` (Mode: String, Codable) is stored as its raw value: with a generic parameter
// the compiler ranks the two as equally specific and prefers the non-generic `Codable` one.

extension Default {
    /// `@Default("nickname") var nickname: String?` for an optional ``DefaultsSerializable``
    /// value: nil by default (or `wrappedValue` when one is written); setting nil removes the row.
    ///
    /// ```swift
    /// @Default("nickname") var nickname: String?
    /// @Default("home", store: store) var home: URL? = URL(fileURLWithPath: "/srv")
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: what reads return while the key has no row; nil unless given.
    ///   - name: the row's key; any non-empty string (an empty one is reported when used).
    ///   - store: the store to use, or nil (the default) for ``DefaultsStore/standard`` at each access.
    public init(wrappedValue: Value = nil, _ name: String, store: DefaultsStore? = nil)
    where Value: _DefaultsOptional & DefaultsSerializable, Value.Wrapped: DefaultsSerializable & Sendable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .optionalValue(.serializable())), store: store)
    }

    /// An optional `RawRepresentable` value (`@Default("theme") var theme: Theme?`), stored as
    /// its raw value; nil by default.
    public init(wrappedValue: Value = nil, _ name: String, store: DefaultsStore? = nil)
    where Value: _DefaultsOptional, Value.Wrapped: RawRepresentable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .optionalValue(.rawValue())), store: store)
    }

    /// An optional `Codable` value (`@Default("profile") var profile: Profile?`), stored as
    /// JSON text; nil by default.
    public init(wrappedValue: Value = nil, _ name: String, store: DefaultsStore? = nil)
    where Value: _DefaultsOptional & Codable, Value.Wrapped: Codable & Sendable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .optionalValue(.json())), store: store)
    }

    /// An optional value that is serializable and `Codable` (`[String]?`): uses ``DefaultsSerializable``.
    public init(wrappedValue: Value = nil, _ name: String, store: DefaultsStore? = nil)
    where Value: _DefaultsOptional & DefaultsSerializable & Codable, Value.Wrapped: DefaultsSerializable & Codable & Sendable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .optionalValue(.serializable())), store: store)
    }

    /// An optional value that is serializable and `RawRepresentable`: uses ``DefaultsSerializable``.
    public init(wrappedValue: Value = nil, _ name: String, store: DefaultsStore? = nil)
    where Value: _DefaultsOptional & DefaultsSerializable,
          Value.Wrapped: DefaultsSerializable & RawRepresentable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .optionalValue(.serializable())), store: store)
    }

    /// An optional value that is `RawRepresentable` and `Codable` (`Mode?` for
    /// `enum Mode: String, Codable`): stored as its raw value.
    public init(wrappedValue: Value = nil, _ name: String, store: DefaultsStore? = nil)
    where Value: _DefaultsOptional & Codable,
          Value.Wrapped: RawRepresentable & Codable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .optionalValue(.rawValue())), store: store)
    }

    /// An optional value that is serializable, `RawRepresentable` and `Codable`: uses ``DefaultsSerializable``.
    public init(wrappedValue: Value = nil, _ name: String, store: DefaultsStore? = nil)
    where Value: _DefaultsOptional & DefaultsSerializable & Codable,
          Value.Wrapped: DefaultsSerializable & RawRepresentable & Codable & Sendable, Value.Wrapped.RawValue: DefaultsSerializable {
        self.init(DefaultsKey(name: name, defaultValue: wrappedValue, codec: .optionalValue(.serializable())), store: store)
    }
}
