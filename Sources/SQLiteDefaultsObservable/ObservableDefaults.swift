#if Observable
/// Makes a class's stored properties persisted in a `DefaultsStore` and observable per
/// property with the Observation framework, refreshed whoever changes the store.
///
/// ```swift
/// import SQLiteDefaultsObservable
///
/// @ObservableDefaults(prefix: "app.")
/// final class Settings {
///     var name = "Guest"                                   // key "app.name"
///     @DefaultsBacked("launch_count") var launchCount = 0  // key "app.launch_count"
///     @ObservableOnly var isEditing = false                // observable, not stored
///     @Ignore var scratch = 0                              // neither
/// }
///
/// let settings = Settings(store: try DefaultsStore(path: "/var/lib/app/defaults.sqlite"))
/// withObservationTracking { _ = settings.name } onChange: { print("name changed") }
/// ```
///
/// Every stored `var` becomes a computed property whose getter reads the store (through its
/// cache) and whose setter writes it (durable when it returns; failures are logged and
/// reported by the store, as for its subscript). The property's initializer is the key's
/// default, and its type is the key's value type: any type the store supports, `Optional`
/// and `Codable` ones included (an `Optional` with no initializer defaults to `nil`).
/// `willSet`/`didSet` run around the write.
///
/// `withObservationTracking` on a property fires once when its key changes through this
/// object, another object on the same store, another `DefaultsStore` on the file, another
/// process or the `sqlite3` shell — and never for another key, nor for a write of the value
/// the key already holds. The change is announced after it is committed, on the thread that
/// delivers the store's notification (usually the writer's own for writes through the same
/// store, the store's monitor thread for the others), not necessarily the main actor;
/// reading the property then already gives the new value. With `ignoreExternalChanges`,
/// the setter announces the object's own writes itself, as `@Observable` does.
///
/// The macro adds:
/// - `init(store: DefaultsStore, ignoreExternalChanges: Bool = <option>, prefix: String = <option>)`
///   (unless `autoInit: false`), whose arguments override the macro's options at run time;
/// - `setUpDefaults(store:ignoreExternalChanges:prefix:)`, which that init calls: it builds
///   the keys with the prefix, binds the store and starts observing it;
/// - the conformance to `Observation.Observable`.
///
/// - Parameters:
///   - prefix: put before every key the class persists, `@DefaultsBacked` names included.
///   - ignoreExternalChanges: `true` to announce only this object's own writes: the object
///     does not observe the store. Reads still return the store's current value.
///   - observeFirst: `true` to persist only `@DefaultsBacked` properties; the others are
///     observable only, as if marked `@ObservableOnly`.
///   - autoInit: `true` (the default) generates the initializer. With `false`, write your own
///     and call `setUpDefaults(store:)` in it once every stored property has a value (so, in a
///     subclass, after `super.init()`), before any persisted property is used.
///
/// The class must be a class (`final` or not); every persisted property a `var` with a
/// default value and, when the initializer alone cannot give it a type (`nil`, `[]`,
/// `.member`), a type annotation. A `let` must be marked `@Ignore`. Keys must differ.
/// Mistakes are compile-time errors with fix-its.
@attached(member, names: named(_$defaultsStorage), named(init), named(setUpDefaults))
@attached(memberAttribute)
@attached(extension, conformances: Observable)
public macro ObservableDefaults(
    prefix: String = "",
    ignoreExternalChanges: Bool = false,
    observeFirst: Bool = false,
    autoInit: Bool = true
) = #externalMacro(module: "SQLiteDefaultsMacros", type: "ObservableDefaultsMacro")
#endif
