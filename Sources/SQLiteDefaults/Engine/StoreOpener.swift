import Foundation

/// Opens a store's connection: the file made ready, checked, configured and migrated.
/// Nothing is written to a file before it is known to be a database of this library, of a
/// schema it understands, with a write-ahead log that belongs to it.
enum StoreOpener {
    /// The smallest length limit given to SQLite (see `configure`). It caps every string SQLite
    /// makes, the text of each schema object it loads included: the longest, the JSON check of
    /// declared keys (Migrations/0014), is about 1,500 bytes (0010's was 7,600), and a statement that writes
    /// `defaults` fails to prepare when the limit is below it. 64 KiB leaves room for the schema to
    /// grow; the store holds values to the configured limit itself.
    static let sqliteLengthFloor = 65_536

    /// - Parameters:
    ///   - realPath: the database file with symbolic links resolved, or nil for memory.
    ///   - report: told of what the open did on its own and the store must report (a
    ///     write-ahead log moved aside).
    static func open(realPath: String?, configuration: DefaultsStore.Configuration,
                     report: (DefaultsError) -> Void) throws -> StoreConnection {
        let database = try openDatabase(realPath: realPath, configuration: configuration, report: report)
        return try StoreConnection(database: database,
                                   tracksChanges: realPath != nil && configuration.watchesExternalChanges && !configuration.isReadOnly,
                                   maximumValueLength: configuration.maximumValueLength)
    }

    /// The connection alone, checked, configured and migrated (also used to resume a
    /// suspended store).
    static func openDatabase(realPath: String?, configuration: DefaultsStore.Configuration,
                             report: (DefaultsError) -> Void) throws -> Database {
        guard let realPath else {
            let database = try Database(path: ":memory:", create: true, classify: DefaultsError.classifying)
            try configure(database, configuration: configuration, isFile: false)
            return database
        }
        // A log nobody holds is replayed by whoever opens the file first: check it before
        // SQLite sees it (see WalOwnership).
        var orphanedLog = WalOwnership.isOrphaned(realPath: realPath)
        if orphanedLog, let reason = WalOwnership.lineageMismatch(realPath: realPath) {
            let kept = try WalOwnership.setAside(realPath: realPath)
            report(WalOwnership.setAsideReport(realPath: realPath, reason: reason, keptAt: kept))
            orphanedLog = false
        }
        switch try connect(realPath: realPath, configuration: configuration, orphanedLog: orphanedLog) {
        case .ready(let database):
            return database
        case .logMismatch(let reason):
            // Checked again now that this connection is closed: a log another process took up
            // in the meantime is live, and moving it would lose that process's commits.
            guard WalOwnership.isOrphaned(realPath: realPath) else {
                throw DefaultsError(.corrupt, "the write-ahead log \(realPath)-wal does not belong to the database: \(reason); another process holds it open, so it was left untouched",
                                    path: realPath)
            }
            let kept = try WalOwnership.setAside(realPath: realPath)
            report(WalOwnership.setAsideReport(realPath: realPath, reason: reason, keptAt: kept))
            guard case .ready(let database) = try connect(realPath: realPath, configuration: configuration, orphanedLog: false) else {
                throw DefaultsError(.corrupt, "the database \(realPath) cannot be opened after its write-ahead log was moved aside", path: realPath)
            }
            return database
        }
    }

    private enum Connection {
        case ready(Database)
        /// The orphaned log beside the file must not be replayed; the connection was closed
        /// without checkpointing it.
        case logMismatch(String)
    }

    private static func connect(realPath: String, configuration: DefaultsStore.Configuration, orphanedLog: Bool) throws -> Connection {
        ConnectionBudget.shared.makeRoom()
        let database: Database
        do {
            database = try Database(path: realPath, create: false, readOnly: configuration.isReadOnly, classify: DefaultsError.classifying)
        } catch let error as DefaultsError where error.isOutOfDescriptors {
            // Out of descriptors after all (the process opened files of its own): give
            // back idle connections and try once more.
            ConnectionBudget.shared.makeRoom(urgently: true)
            database = try Database(path: realPath, create: false, readOnly: configuration.isReadOnly, classify: DefaultsError.classifying)
        }
        do {
            if let reason = try configure(database, configuration: configuration, isFile: true, orphanedLog: orphanedLog) {
                neverCheckpointOnClose(database)
                database.close()
                return .logMismatch(reason)
            }
            return .ready(database)
        } catch {
            // Refused (not a database, another program's, newer schema, a -wal of another
            // database, damaged, migration failed): closing this, the last connection, must
            // not checkpoint an existing -wal into the file and delete it — the refusal leaves
            // both as they were.
            neverCheckpointOnClose(database)
            throw error
        }
    }

    /// The page size of a file this library creates: 2,048 bytes, half SQLite's default.
    ///
    /// Every commit of a `set` appends two pages to the `-wal` (the row's page of `defaults` and
    /// the change log's last page), and SQLite checksums and copies each page whole, so the page
    /// size sets most of a small write's cost: with 4,096-byte pages those two frames were
    /// about 14,000 of a `set`'s 46,000 instructions. At 2,048 a durable `set` takes about a
    /// fifth less time (`Benchmarks/compare.sh`, the Performance article). Preferences are small
    /// rows; a value of a megabyte is read about a fifth slower through twice as many overflow
    /// pages, and written about 5% slower. 1,024 would save a little more on one `set` and cost
    /// more on transactions of many keys and on large values.
    static let newFilePageSize = 2_048

    private static func neverCheckpointOnClose(_ database: Database) {
        database.neverCheckpointOnClose()
    }

    /// Checks, configures and migrates a freshly opened connection.
    /// - Returns: why an orphaned log must not be replayed, or nil when the connection is ready.
    @discardableResult
    private static func configure(_ database: Database, configuration: DefaultsStore.Configuration, isFile: Bool,
                                  orphanedLog: Bool = false) throws -> String? {
        let milliseconds = configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        database.setBusyTimeout(milliseconds: milliseconds)
        // Before any write statement is prepared: the change log's triggers record who wrote.
        try WriterIdentity.install(on: database)
        // The first read is where SQLite notices a file that is not a database.
        do {
            _ = try OpeningWait.retryingBusy(timeout: configuration.busyTimeout, path: database.path, while: "reading the schema") {
                try database.integer("SELECT count(*) FROM sqlite_master")
            }
        } catch let error as DefaultsError where error.code == .notADatabase {
            throw DefaultsError(.notADatabase, "the file at \(database.path) is not a SQLite database; it was left untouched",
                                path: database.path, sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
        }
        if isFile {
            if let reason = WalOwnership.identityMismatch(database) {
                if orphanedLog { return reason }
                throw DefaultsError(
                    .corrupt,
                    "the write-ahead log \(database.path)-wal does not belong to the database: \(reason); another process holds it open, so both were left untouched",
                    path: database.path)
            }
            if orphanedLog, let reason = try WalOwnership.damagedOnlyByLog(database) { return reason }
        }
        let hasTable = try SchemaOwnership.check(database, allowsOtherTables: configuration.allowsOtherTables)
        let migrator = Migrator()
        try migrator.checkNotNewer(database)
        if configuration.isReadOnly {
            // Nothing is written to the file. Without a table yet (an empty database), reads
            // find a private empty one; `query_only` then refuses every write, that one's too.
            if !hasTable { try database.execute("CREATE TEMP TABLE defaults (key TEXT NOT NULL UNIQUE, value)") }
            try database.execute("PRAGMA query_only = 1")
            limitLengths(database, configuration: configuration)
            return nil
        }
        if isFile {
            // Only a file with no pages yet takes it; SQLite ignores it on any other, so a file
            // keeps the page size it was made with (see `newFilePageSize`).
            try database.execute("PRAGMA page_size = \(newFilePageSize)")
            // Processes opening a new file at once: see OpeningWait.
            let journalMode = try OpeningWait.retryingBusy(timeout: configuration.busyTimeout, path: database.path,
                                                           while: "switching the journal to WAL") {
                let mode = try database.statement("PRAGMA journal_mode = WAL")
                defer { mode.reset() }
                _ = try mode.step()
                return mode.text(at: 0)
            }
            guard journalMode.lowercased() == "wal" else {
                throw DefaultsError(.cannotOpen, "the database at \(database.path) cannot use write-ahead logging (journal mode is \(journalMode))", path: database.path)
            }
        }
        try database.execute("PRAGMA synchronous = \(configuration.synchronous == .full ? "FULL" : "NORMAL")")
        try OpeningWait.retryingBusy(timeout: configuration.busyTimeout, path: database.path, while: "migrating the schema") {
            try migrator.migrate(database)
        }
        // A file written meanwhile only by clients that never prune (`sqlite3`, Python, a
        // cron job) is brought back to its length now; a read-only store returned above and
        // writes nothing. Without waiting for the lock, and best effort: opening never fails
        // or queues for it.
        if isFile { _ = try? HistoryLog.pruneIfOverdue(database) }
        limitLengths(database, configuration: configuration)
        return nil
    }

    /// After migrating: the limit also caps rows of sqlite_master, which the schema writes.
    /// It also caps every string SQLite makes — the literals of our own statements,
    /// `typeof()` results — so it never goes below `sqliteLengthFloor`; the store itself
    /// holds values to the configured limit, on the way in and on the way out.
    private static func limitLengths(_ database: Database, configuration: DefaultsStore.Configuration) {
        database.limitLength(to: max(configuration.maximumValueLength, sqliteLengthFloor))
    }
}
