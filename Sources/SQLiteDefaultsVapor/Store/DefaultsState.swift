#if Vapor
import SQLiteDefaults
import SQLiteDefaultsConsole
import Synchronization
import Vapor

/// What one application holds of SQLiteDefaults: its store, whether the integration opened it
/// (and so closes it at shutdown), and the consoles mounted over it (whose event streams end at
/// shutdown). Kept in `app.storage`, created once per application.
final class DefaultsState: Sendable {
    struct Held: Sendable {
        var store: DefaultsStore?
        /// Whether shutdown closes the store: it was opened by `use(path:)` or `use(name:)`, or
        /// handed over with `use(_:closesOnShutdown: true)`.
        var closesOnShutdown = false
        var consoles: [DefaultsConsole] = []
        var shutDown = false
    }

    let held = Mutex(Held())

    /// The application's store, or why there is none.
    func store() throws(DefaultsVaporError) -> DefaultsStore {
        let (store, shutDown) = held.withLock { ($0.store, $0.shutDown) }
        if let store { return store }
        throw shutDown ? .shutDown : .notInUse
    }

    /// Takes `store` as the application's; throws `.alreadyInUse` when it has one (nothing changes).
    func adopt(_ open: () throws -> DefaultsStore, closesOnShutdown: Bool) throws {
        // Opening happens under the lock, so two concurrent `use` calls cannot both open.
        try held.withLock { held in
            if let current = held.store { throw DefaultsVaporError.alreadyInUse(current.path ?? "in memory") }
            if held.shutDown { throw DefaultsVaporError.shutDown }
            held.store = try open()
            held.closesOnShutdown = closesOnShutdown
        }
    }

    /// The store and consoles to stop, taken out so that nothing uses them after shutdown.
    func takeForShutdown() -> Held {
        held.withLock { held in
            let taken = held
            held = Held()
            held.shutDown = true
            return taken
        }
    }
}

extension Application {
    /// The key of ``DefaultsState`` in `app.storage`.
    struct DefaultsStateKey: StorageKey, LockKey {
        typealias Value = DefaultsState
    }

    /// This application's state, created (with the lifecycle handler that closes it) on first use.
    var defaultsState: DefaultsState {
        // `app.storage` is only read and written under `locks`, so two first uses create one.
        locks.lock(for: DefaultsStateKey.self).withLock {
            if let state = storage[DefaultsStateKey.self] { return state }
            let state = DefaultsState()
            storage[DefaultsStateKey.self] = state
            lifecycle.use(DefaultsLifecycle(state: state))
            return state
        }
    }
}
#endif
