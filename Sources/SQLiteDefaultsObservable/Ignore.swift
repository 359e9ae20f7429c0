#if Observable
/// Leaves a property of an `@ObservableDefaults` class alone: neither persisted nor
/// observable, a plain stored property.
///
/// ```swift
/// @ObservableDefaults
/// final class Settings {
///     @Ignore var scratch = 0
///     @Ignore let createdAt = Date()   // a `let` must be marked @Ignore
/// }
/// ```
@attached(peer)
public macro Ignore() = #externalMacro(module: "SQLiteDefaultsMacros", type: "IgnoreMacro")
#endif
