/// One key of a store, declared once and read and written like a plain property.
///
/// ```swift
/// enum Preferences {
///     static let store = try! DefaultsStore.standard(name: "myapp")  // your app's choice
/// }
/// struct Greeter {
///     @Default(.name, store: Preferences.store) var name
///     func greet() { print("Hello, \(name)") }      // reads store[.name]
///     func rename(_ new: String) { name = new }      // writes store[.name]; no `mutating` needed
/// }
/// ```
///
/// Writes go through the non-throwing subscript: a failure is logged and reported on the
/// store's ``DefaultsStore/writeFailures``. The projected value (`$name`) observes the key.
@propertyWrapper
public struct Default<Value: Sendable>: Sendable {
    /// The key read and written.
    public let key: DefaultsKey<Value>
    /// The store it lives in.
    public let store: DefaultsStore

    /// Binds the property to `key` in `store`.
    public init(_ key: DefaultsKey<Value>, store: DefaultsStore) {
        self.key = key
        self.store = store
    }

    /// The stored value (or the key's default); setting writes it durably.
    public var wrappedValue: Value {
        get { store[key] }
        nonmutating set { store[key] = newValue }
    }

    /// `$property`: observation of the key.
    public var projectedValue: Default<Value> { self }

    /// Calls `handler` after every committed change of the key; see ``DefaultsStore/observe(_:_:)``.
    /// - Returns: a token; observation lasts until it is cancelled or deallocated.
    public func observe(_ handler: @escaping @Sendable (DefaultsChange<Value>) -> Void) -> DefaultsObservation {
        store.observe(key, handler)
    }

    /// The current value, then every change; see ``DefaultsStore/updates(_:initial:)``.
    public var updates: AsyncStream<Value> { store.updates(key) }
}
