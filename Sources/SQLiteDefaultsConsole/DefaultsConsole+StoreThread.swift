#if Console
import SQLiteDefaults

extension DefaultsConsole {
    /// Runs a handler that reads or writes the store on the store's own thread, so a write
    /// waiting for another process's lock holds no thread the server shares. The request's
    /// principal and credential (task-locals) go with it.
    ///
    /// A handler whose first write finds the file locked is run again from the start once the
    /// lock is free (see `DefaultsStore.onStoreThread`): handlers read before they write, and
    /// write once. Cancelled before it started (the client went away) or the store closed
    /// meanwhile: the store's failure, as any handler answers it.
    func onStoreThread(_ handler: @escaping @Sendable () -> ConsoleResponse) async -> ConsoleResponse {
        let principal = ConsolePrincipal.current
        let stillValid = ConsoleCredential.stillValid
        do {
            return try await store.onStoreThread {
                ConsolePrincipal.$current.withValue(principal) {
                    ConsoleCredential.$stillValid.withValue(stillValid) { handler() }
                }
            }
        } catch {
            return Self.storeFailure(error)
        }
    }
}
#endif
