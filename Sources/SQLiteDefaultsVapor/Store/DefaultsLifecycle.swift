#if Vapor
import Vapor

/// Closes the application's store when the application shuts down (after its server stopped
/// taking requests, since handlers shut down in reverse order of registration and the server is
/// stopped first), and ends the event streams of the consoles mounted over it, so a browser's
/// open stream does not hold the shutdown.
struct DefaultsLifecycle: LifecycleHandler {
    let state: DefaultsState

    func shutdownAsync(_ application: Application) async {
        let held = state.takeForShutdown()
        for console in held.consoles { console.closeEventStreams() }
        guard held.closesOnShutdown, let store = held.store else { return }
        do {
            try store.close()
        } catch {
            application.logger.warning("SQLiteDefaults: closing the store at \(store.path ?? "(in memory)") failed: \(error)")
        }
    }
}
#endif
