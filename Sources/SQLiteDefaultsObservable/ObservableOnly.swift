#if Observable
/// Keeps a property of an `@ObservableDefaults` class in memory only: observable with
/// `withObservationTracking` like an `@Observable` property, never written to the store.
///
/// ```swift
/// @ObservableDefaults
/// final class Settings {
///     @ObservableOnly var isEditing = false
/// }
/// ```
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_$))
public macro ObservableOnly() =
    #externalMacro(module: "SQLiteDefaultsMacros", type: "ObservableOnlyMacro")
#endif
