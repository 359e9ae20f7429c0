#if Vapor
/// The one error type of SQLiteDefaultsVapor: what went wrong in the integration itself. The
/// store's own failures (a file that cannot be opened, a closed store) stay `DefaultsError`.
///
/// ```swift
/// do {
///     try app.defaults.use(path: "/var/lib/app/defaults.sqlite")
/// } catch let error as DefaultsVaporError where error.code == .alreadyInUse {
///     // another part of the app configured the store first
/// }
/// ```
public struct DefaultsVaporError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure, for `catch` and `switch`.
    public enum Code: Sendable, Hashable {
        /// `app.defaults.use(…)` was called when the application already has a store.
        case alreadyInUse
        /// The store was asked for (``Vapor/Application/Defaults/requireStore()``, the console's
        /// mount, ``DefaultsCommand``) before `app.defaults.use(…)`.
        case notInUse
        /// The application has shut down, and its store with it.
        case shutDown
        /// A ``DefaultsCommand`` made for tests ran a prefs command that failed (prefs printed
        /// why); the command line's ``DefaultsCommand`` ends the process with prefs's status instead.
        case commandFailed
    }

    /// What kind of failure.
    public let code: Code
    /// What went wrong, in words for the person who configures the app.
    public let message: String

    /// An error of kind `code` saying `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func alreadyInUse(_ current: String) -> Self {
        Self(.alreadyInUse, "app.defaults.use(…) was already called (the store at \(current)); call it once, while configuring the application")
    }

    static let notInUseMessage = "the application has no store: call app.defaults.use(path:), use(name:) or use(_:) while configuring it"
    static let notInUse = Self(.notInUse, notInUseMessage)

    static let shutDown = Self(.shutDown, "the application has shut down, and its store was closed with it")
}
#endif
