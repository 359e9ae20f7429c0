import Logging

extension DefaultsStore {
    /// How a store opens and runs its database.
    ///
    /// ```swift
    /// var configuration = DefaultsStore.Configuration()
    /// configuration.synchronous = .full   // survive power loss, not just a crash
    /// let store = try DefaultsStore(path: path, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// SQLite's `synchronous` setting in WAL mode.
        public enum Synchronous: Sendable, Hashable {
            /// A committed write survives the process being killed (it is in the WAL); the
            /// last commits may be lost on power failure. The default.
            case normal
            /// Every commit is also flushed to stable storage (an fsync per commit):
            /// survives power loss, costs roughly 10× per write.
            case full
        }

        /// Durability of each commit. Default `.normal`.
        public var synchronous: Synchronous = .normal
        /// How long a write waits for another connection's lock before failing with
        /// ``DefaultsError/Code/busy``. Default 10 seconds.
        public var busyTimeout: Duration = .seconds(10)
        /// The largest TEXT or BLOB value accepted, in bytes; larger ones fail with
        /// ``DefaultsError/Code/valueTooLarge``. Default SQLite's own limit, 1,000,000,000.
        public var maximumValueLength: Int = 1_000_000_000
        /// Whether to watch for changes made by other connections (other stores, processes,
        /// SQL clients). Default `true`; ignored for in-memory stores.
        public var observesExternalChanges: Bool = true
        /// How often the change monitor checks when the file system reports nothing (a
        /// fallback for file systems without inotify). Default 2 seconds.
        public var safetyPollInterval: Duration = .seconds(2)
        /// Where failures of non-throwing writes and background checks are logged.
        public var logger: Logger = Logger(label: "SQLiteDefaults")

        /// The defaults described on each property.
        public init() {}
    }
}
