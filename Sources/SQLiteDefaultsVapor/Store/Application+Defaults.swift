#if Vapor
import SQLiteDefaults
import Vapor

extension Application {
    /// SQLiteDefaults in this application: the store's lifetime (``Defaults/use(path:configuration:)``),
    /// the store itself (``Defaults/store``), and the console (``Defaults/console``).
    ///
    /// ```swift
    /// try app.defaults.use(path: "/var/lib/app/defaults.sqlite")
    /// let theme = app.defaults.store[.theme]
    /// ```
    public var defaults: Defaults { Defaults(application: self) }

    /// SQLiteDefaults in an application, as `app.defaults` (the way `app.databases` and
    /// `app.redis` hang off a Vapor application).
    public struct Defaults: Sendable {
        let application: Application

        var state: DefaultsState { application.defaultsState }

        /// Opens the store at `path` (created if missing) as the application's, closed when the
        /// application shuts down.
        ///
        /// ```swift
        /// try app.defaults.use(path: "/var/lib/app/defaults.sqlite")
        /// ```
        ///
        /// - Throws: ``DefaultsVaporError`` `.alreadyInUse` when the application already has a
        ///   store (call `use` once, while configuring), `.shutDown` after shutdown; or the
        ///   `DefaultsError` of `DefaultsStore(path:configuration:)` when the file cannot be opened.
        public func use(path: String, configuration: DefaultsStore.Configuration = .init()) throws {
            if application.didShutdown { throw DefaultsVaporError.shutDown }
            try state.adopt({ try DefaultsStore(path: path, configuration: configuration) }, closesOnShutdown: true)
        }

        /// Uses the process's shared store for the application `name`, the one
        /// `DefaultsStore.standard(name:configuration:)` returns (at
        /// `$XDG_CONFIG_HOME/<name>/defaults.sqlite`, else `~/.config/<name>/defaults.sqlite`), so
        /// the app's other code that asks for that store by name gets this same object. It is
        /// closed when the application shuts down; a later `standard(name:)` call opens it anew.
        ///
        /// ```swift
        /// try app.defaults.use(name: "app")
        /// ```
        ///
        /// - Throws: ``DefaultsVaporError`` `.alreadyInUse` or `.shutDown` as
        ///   ``use(path:configuration:)``; or `DefaultsError` (`.invalidName`, or the file's).
        public func use(name: String, configuration: DefaultsStore.Configuration = .init()) throws {
            if application.didShutdown { throw DefaultsVaporError.shutDown }
            try state.adopt({ try DefaultsStore.standard(name: name, configuration: configuration) }, closesOnShutdown: true)
        }

        /// Uses a store the app opened itself. It stays the caller's: shutdown leaves it open
        /// unless `closesOnShutdown` is true, because the caller may share it with code that
        /// outlives the application (a test, another service) and knows when it is done.
        ///
        /// ```swift
        /// try app.defaults.use(store, closesOnShutdown: true)
        /// ```
        ///
        /// - Throws: ``DefaultsVaporError`` `.alreadyInUse` when the application already has a
        ///   store, `.shutDown` after shutdown.
        public func use(_ store: DefaultsStore, closesOnShutdown: Bool = false) throws {
            if application.didShutdown { throw DefaultsVaporError.shutDown }
            try state.adopt({ store }, closesOnShutdown: closesOnShutdown)
        }

        /// The application's store.
        ///
        /// Like Vapor's `app.db`, it is configuration the app must have done: asking for it before
        /// `use(…)` is a mistake in the app's code (never something a request or a file can cause),
        /// so it stops the program with a message that says which call is missing, rather than
        /// make every read of a preference `try`. Code that cannot know whether the store was
        /// configured calls ``requireStore()``, which throws instead.
        ///
        /// ```swift
        /// app.defaults.store[.theme] = .dark
        /// ```
        public var store: DefaultsStore {
            do {
                return try requireStore()
            } catch {
                preconditionFailure("SQLiteDefaultsVapor: \(error.message)")
            }
        }

        /// The application's store, or an error when there is none.
        ///
        /// - Throws: ``DefaultsVaporError`` `.notInUse` before `use(…)`, `.shutDown` after the
        ///   application shut down.
        public func requireStore() throws(DefaultsVaporError) -> DefaultsStore {
            // Shutdown clears `app.storage`, so the application itself says it is over.
            if application.didShutdown { throw .shutDown }
            return try state.store()
        }

        /// Whether the application has a store now (`use(…)` was called and it has not shut down).
        public var isInUse: Bool { (try? requireStore()) != nil }
    }
}
#endif
