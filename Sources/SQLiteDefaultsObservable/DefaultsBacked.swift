#if Observable
/// Persists a property of an `@ObservableDefaults` class, under its own name or under
/// `key`; the class's prefix applies either way.
///
/// ```swift
/// @ObservableDefaults(prefix: "app.", observeFirst: true)
/// final class Session {
///     @DefaultsBacked("launch_count") var launchCount = 0  // stored as "app.launch_count"
///     @DefaultsBacked var name = "Guest"                   // stored as "app.name"
///     var isEditing = false                                // observable only (observeFirst)
/// }
/// ```
///
/// Without `observeFirst`, every stored `var` is persisted and this attribute is only
/// needed to choose the key. The property must be a stored `var` with a default value
/// (an `Optional` may omit it: `nil`).
@attached(accessor, names: named(get), named(set))
@attached(peer, names: prefixed(_$))
public macro DefaultsBacked(_ key: String? = nil) =
    #externalMacro(module: "SQLiteDefaultsMacros", type: "DefaultsBackedMacro")
#endif
