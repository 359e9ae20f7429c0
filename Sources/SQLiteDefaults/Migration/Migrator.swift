/// Brings a database to `Migration.latestVersion`, one migration per transaction, each
/// recorded in `PRAGMA user_version`. Refuses a database from a newer library without
/// writing to it.
struct Migrator {
    let migrations: [Migration]

    init(migrations: [Migration] = Migration.embedded) {
        self.migrations = migrations
    }

    /// Reads the schema version without writing anything.
    static func currentVersion(of database: Database) throws -> Int {
        Int(try database.integer("PRAGMA user_version"))
    }

    /// Throws ``DefaultsError/Code/newerSchema`` when the file is ahead of this library.
    func checkNotNewer(_ database: Database) throws {
        let version = try Self.currentVersion(of: database)
        let latest = migrations.last?.version ?? 0
        if version > latest {
            throw DefaultsError(
                .newerSchema,
                "the database at \(database.path) has schema version \(version), but this version of SQLiteDefaults knows only up to \(latest); upgrade the library to open it",
                path: database.path)
        }
    }

    /// Applies every migration the database has not seen.
    ///
    /// Each runs inside `BEGIN IMMEDIATE`, and the version is read again inside it: when two
    /// processes open a new file at once, the second waits for the first and then finds
    /// nothing left to do.
    func migrate(_ database: Database) throws {
        try checkNotNewer(database)
        for migration in migrations where migration.version > (try Self.currentVersion(of: database)) {
            try database.execute("BEGIN IMMEDIATE")
            do {
                if try Self.currentVersion(of: database) < migration.version { try apply(migration, to: database) }
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw Self.failure(of: migration, error, path: database.path, "failed and was rolled back")
            }
        }
    }

    /// Applies every migration the database has not seen inside the transaction the caller holds
    /// (its write lock taken): a backup of an older schema found under a store in the middle of
    /// a transaction. A failure is thrown as ``migrate(_:)`` names it, and the caller's
    /// transaction rolls back with it.
    func migrateInOpenTransaction(_ database: Database) throws {
        try checkNotNewer(database)
        for migration in migrations where migration.version > (try Self.currentVersion(of: database)) {
            do {
                try apply(migration, to: database)
            } catch {
                throw Self.failure(of: migration, error, path: database.path, "failed")
            }
        }
    }

    private func apply(_ migration: Migration, to database: Database) throws {
        try database.execute(migration.sql)
        try database.execute("PRAGMA user_version = \(migration.version)")
    }

    /// A library error passes unchanged; SQLite's is named as the migration that failed.
    private static func failure(of migration: Migration, _ error: any Error, path: String, _ outcome: String) -> any Error {
        if let error = error as? DefaultsError, error.code != .sqlite { return error }
        return DefaultsError(
            .migrationFailed,
            "migration \(migration.version) (\(migration.name)) \(outcome): \(error)",
            path: path, sqliteCode: (error as? DefaultsError)?.sqliteCode)
    }
}
