#if ServiceLifecycle
public import Logging
public import SQLiteDefaults
public import ServiceLifecycle

/// A swift-service-lifecycle `Service` that keeps a `DefaultsStore` open while
/// the service group runs, and closes it on graceful shutdown (or cancellation).
///
/// ```swift
/// import ServiceLifecycle
/// import SQLiteDefaults
/// import SQLiteDefaultsServiceLifecycle
///
/// let store = try DefaultsStore(path: "/var/lib/app/defaults.sqlite")
/// let group = ServiceGroup(
///     services: [DefaultsStoreService(store: store), httpServer],  // the store first: it stops last
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger
/// )
/// try await group.run()   // on SIGTERM: the server drains, then the store is checkpointed and closed
/// ```
///
/// A `ServiceGroup` shuts its services down in reverse order, waiting for each: list this
/// service before the services that read the store, so they can still read it while they
/// drain. Closing checkpoints the WAL, stops watching the file and ends every `updates()` and
/// `changes()` sequence and every configuration watch over the store.
public struct DefaultsStoreService: Service {
    /// The store this service closes.
    public let store: DefaultsStore
    private let logger: Logger

    /// Creates a service for `store`.
    ///
    /// - Parameters:
    ///   - store: the store to close on graceful shutdown.
    ///   - logger: where the service logs, at `.debug`, when it closes the store. By default a
    ///     logger labelled `SQLiteDefaults`.
    public init(store: DefaultsStore, logger: Logger = Logger(label: "SQLiteDefaults")) {
        self.store = store
        self.logger = logger
    }

    /// Waits until the group shuts down gracefully, or the task is cancelled, then closes the
    /// store and returns.
    ///
    /// - Throws: `DefaultsError` if closing the store fails (it cannot today
    ///   outside a transaction of the store itself: `.misuse`).
    public func run() async throws {
        // Throws CancellationError when the task is cancelled instead: close then too.
        try? await gracefulShutdown()
        logger.debug("SQLiteDefaults: closing the store on shutdown", metadata: ["path": "\(store.path ?? ":memory:")"])
        try store.close()
    }
}
#endif
