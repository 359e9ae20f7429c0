import CoreMetrics
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
            /// A committed write survives the process being killed (it is in the WAL). A power
            /// failure can lose the commits made since the log was last checkpointed (about
            /// every 2 MB of log, and when the last connection closes) — never an older one,
            /// never part of a transaction — and the file opens intact. The default.
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
        /// Whether and how changes by other connections — other stores, other processes, SQL
        /// clients — are noticed. The one external-change setting. Default
        /// ``ExternalChangeDetection/automatic``; ignored for in-memory stores.
        ///
        /// ```swift
        /// configuration.externalChangeDetection = .off                               // this store's own changes only
        /// configuration.externalChangeDetection = .automatic(safetyPollInterval: .seconds(30))
        /// configuration.externalChangeDetection = .polling(interval: .milliseconds(250))
        /// ```
        public var externalChangeDetection: ExternalChangeDetection = .automatic
        /// Where the store reports its swift-metrics — commits, changes made by other
        /// connections, and how long the monitor's looks take (names in the "Configuration, lifecycle and the example server" article):
        /// nil, the default, uses `MetricsSystem.factory` as it is when the store opens (which
        /// records nothing until the application bootstraps a backend).
        ///
        /// ```swift
        /// configuration.metricsFactory = prometheusFactory   // or leave nil and bootstrap MetricsSystem
        /// ```
        public var metricsFactory: (any MetricsFactory)?

        /// Whether the store follows other connections' commits.
        var watchesExternalChanges: Bool { externalChangeDetection.kind != .off }

        /// The interval between safety looks at a file whose events are watched.
        var safetyPoll: Duration {
            switch externalChangeDetection.kind {
            case .fileEvents(let interval): interval
            // A polled file is looked at every interval anyway: a safety look adds nothing.
            case .polling: .seconds(86_400)
            case .off: ExternalChangeDetection.defaultSafetyPoll
            }
        }

        /// Where the store logs: failures of non-throwing writes (at `.debug`: they also reach
        /// ``DefaultsStore/reportedErrors()``), background checks, a fallback to polling. Default: a
        /// logger labelled `SQLiteDefaults`, from whatever `LoggingSystem` the process bootstrapped.
        public var logger: Logger = Logger(label: "SQLiteDefaults")

        /// Opens the file only to read it: it must exist, and nothing in it or beside it is
        /// created, migrated or converted (no schema, no switch to WAL); every write throws
        /// ``DefaultsError/Code/readOnly``. A file of an older schema is read as it is, and an
        /// empty SQLite file reads as a store with no keys. Other connections' changes are seen
        /// by each read (as with ``ExternalChangeDetection/off``); observers hear none.
        /// Default `false`. For tools that inspect a file, as `prefs read` and `prefs list` do.
        public var isReadOnly: Bool = false
        /// Whether the store may live in a SQLite file that holds tables of another program.
        ///
        /// By default a file with tables that this library did not create (and no
        /// `defaults_identity` table of its own) is refused with
        /// ``DefaultsError/Code/foreignDatabase`` and left byte for byte as it was: a mistyped
        /// path must not add tables and triggers to another app's database and switch it to
        /// WAL for good. Set `true` to keep an app's preferences inside its own database; the
        /// store then adds its tables (`defaults`, `defaults_changes`, `defaults_identity`)
        /// beside the app's and switches the file to WAL. A table named `defaults` must still
        /// have the columns `key` and `value`. Default `false`.
        public var allowsOtherTables: Bool = false
        /// Whether files that other users could have written are used.
        ///
        /// By default the database, its `-wal` and its `-shm` are refused with
        /// ``DefaultsError/Code/unsafePermissions`` when one of them is writable by its group or
        /// by everyone, or belongs to another user who is not root: in a shared directory another
        /// user could create the file first and then read or change everything stored in it.
        /// Files this library creates are 0600 in 0700 directories. Set `true` only for a file
        /// deliberately shared between users. Default `false`.
        public var allowsUnsafePermissions: Bool = false

        /// The defaults described on each property.
        public init() {}

        /// - Throws: `.invalidConfiguration` for a value out of range.
        func validate() throws {
            if case .fileEvents(let interval) = externalChangeDetection.kind, interval <= .zero {
                throw DefaultsError(.invalidConfiguration, "the safety poll interval must be positive; it is \(interval)")
            }
            if case .polling(let interval) = externalChangeDetection.kind, interval <= .zero {
                throw DefaultsError(.invalidConfiguration, "the polling interval must be positive; it is \(interval)")
            }
            if maximumValueLength < 1 {
                throw DefaultsError(.invalidConfiguration, "maximumValueLength must be at least 1; it is \(maximumValueLength)")
            }
            if busyTimeout < .zero {
                throw DefaultsError(.invalidConfiguration, "busyTimeout must not be negative; it is \(busyTimeout)")
            }
        }
    }

    /// How a store notices that another connection — another store, another process, the
    /// `sqlite3` shell — committed: file events, polling, or not at all.
    ///
    /// ```swift
    /// configuration.externalChangeDetection = .polling(interval: .milliseconds(250))
    /// ```
    public struct ExternalChangeDetection: Sendable, Hashable {
        enum Kind: Hashable {
            case off
            case fileEvents(safetyPoll: Duration)
            case polling(Duration)
        }

        let kind: Kind

        static let defaultSafetyPoll: Duration = .seconds(2)

        /// File events: one inotify instance and one thread for every store of the process
        /// wake the store within about a tenth of a millisecond of another connection's commit,
        /// using no CPU while nothing happens, with a safety look every 2 seconds should an
        /// event ever be missed. Where inotify cannot be used (the kernel's per-user instance or
        /// watch limit, a file system without it), the file is polled every 100 ms instead, and
        /// the first fallback is logged. The default.
        public static let automatic = ExternalChangeDetection(kind: .fileEvents(safetyPoll: defaultSafetyPoll))

        /// File events, as ``automatic``, with safety looks every `safetyPollInterval` (must be
        /// positive). The stores of a process that share an interval take turns: one look per
        /// interval (and at most one every 2 seconds) among them all, so 10,000 idle stores
        /// cost what one does.
        public static func automatic(safetyPollInterval: Duration) -> ExternalChangeDetection {
            ExternalChangeDetection(kind: .fileEvents(safetyPoll: safetyPollInterval))
        }

        /// Asks SQLite whether another connection committed (`PRAGMA data_version`) every
        /// `interval` (must be positive), without inotify; for file systems whose events cannot
        /// be trusted.
        public static func polling(interval: Duration) -> ExternalChangeDetection {
            ExternalChangeDetection(kind: .polling(interval))
        }

        /// Other connections' changes are not followed: observers hear only this store's own
        /// changes. Reads still return the committed value: before serving a cached value, a
        /// read asks SQLite whether another connection committed (`PRAGMA data_version`, a few
        /// microseconds) and drops the cache if one did.
        public static let off = ExternalChangeDetection(kind: .off)
    }
}
