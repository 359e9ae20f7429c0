import CSQLiteDefaults
import Foundation

/// Opens a store's connection: the file made ready, checked, configured and migrated.
/// Nothing is written to a file before it is known to be a database of a schema this library
/// understands.
enum StoreOpener {
    /// The smallest length limit given to SQLite (see `configure`).
    static let sqliteLengthFloor = 4_096

    /// - Parameter realPath: the database file with symbolic links resolved, or nil for memory.
    static func open(realPath: String?, configuration: DefaultsStore.Configuration) throws -> StoreConnection {
        let database = try openDatabase(realPath: realPath, configuration: configuration)
        return try StoreConnection(database: database,
                                   tracksChanges: realPath != nil && configuration.observesExternalChanges,
                                   maximumValueLength: configuration.maximumValueLength)
    }

    /// The connection alone, checked, configured and migrated (also used to resume a
    /// suspended store).
    static func openDatabase(realPath: String?, configuration: DefaultsStore.Configuration) throws -> Database {
        let database: Database
        if let realPath {
            ConnectionBudget.shared.makeRoom()
            do {
                database = try Database(path: realPath, create: false)
            } catch let error as DefaultsError where error.isOutOfDescriptors {
                // Out of descriptors after all (the process opened files of its own): give
                // back idle connections and try once more.
                ConnectionBudget.shared.makeRoom(urgently: true)
                database = try Database(path: realPath, create: false)
            }
        } else {
            database = try Database(path: ":memory:", create: true)
        }
        do {
            try configure(database, configuration: configuration, isFile: realPath != nil)
            return database
        } catch {
            // Refused (not a database, newer schema, a -wal of another database, damaged,
            // migration failed): closing this, the last connection, must not checkpoint an
            // existing -wal into the file and delete it — the refusal leaves both as they were.
            _ = csqlitedefaults_db_config_int(database.handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nil)
            throw error
        }
    }

    /// Checks, configures and migrates a freshly opened connection.
    private static func configure(_ database: Database, configuration: DefaultsStore.Configuration, isFile: Bool) throws {
        let milliseconds = configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(database.handle, Int32(clamping: milliseconds))
        // The first read is where SQLite notices a file that is not a database.
        do {
            _ = try database.integer("SELECT count(*) FROM sqlite_master")
        } catch let error as DefaultsError where error.code == .notADatabase {
            throw DefaultsError(.notADatabase, "the file at \(database.path) is not a SQLite database; it was left untouched",
                                path: database.path, sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
        }
        if isFile { try WalOwnership.check(database) }
        let migrator = Migrator()
        try migrator.checkNotNewer(database)
        if isFile {
            let mode = try database.statement("PRAGMA journal_mode = WAL")
            defer { mode.reset() }
            _ = try mode.step()
            guard mode.text(at: 0).lowercased() == "wal" else {
                throw DefaultsError(.cannotOpen, "the database at \(database.path) cannot use write-ahead logging (journal mode is \(mode.text(at: 0)))", path: database.path)
            }
        }
        try database.execute("PRAGMA synchronous = \(configuration.synchronous == .full ? "FULL" : "NORMAL")")
        try migrator.migrate(database)
        // After migrating: the limit also caps rows of sqlite_master, which the schema writes.
        // It also caps every string SQLite makes — the literals of our own statements,
        // `typeof()` results — so it never goes below `sqliteLengthFloor`; the store itself
        // holds values to the configured limit, on the way in and on the way out.
        sqlite3_limit(database.handle, SQLITE_LIMIT_LENGTH,
                      Int32(clamping: max(configuration.maximumValueLength, sqliteLengthFloor)))
    }
}
