#if Prefs
import ArgumentParser
import Foundation
import Logging
import PrefsFormats
import SQLiteDefaults

/// `--db PATH | --name APP`: which database a command works on, shared by every command.
///
/// The first of these that is given wins: `--db`, `--name`, the environment variable
/// `PREFS_DB` (a path; ignored when empty), and last the standard database of the app
/// `prefs` (`$XDG_CONFIG_HOME/prefs/defaults.sqlite`). Commands that write say on standard
/// error which file they used when it came from that last fallback, since nothing named it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file to use (default: $PREFS_DB when set, else --name prefs).", valueName: "path"))
    var db: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Use the standard database of this app: $XDG_CONFIG_HOME/<app>/defaults.sqlite, or ~/.config/<app>/defaults.sqlite. (default: prefs, unless $PREFS_DB is set)",
            valueName: "app"
        )
    )
    var name: String?

    func validate() throws {
        if db != nil && name != nil {
            throw ValidationError("--db and --name cannot be used together")
        }
        if let db, db.isEmpty {
            throw ValidationError("--db needs a file path")
        }
    }

    /// The database these options name (see ``StoreLocation``).
    var location: StoreLocation { StoreLocation(db: db, name: name) }

    /// The database file's path. - Throws: as ``StoreLocation/path()``.
    func path() throws -> String { try location.path() }
    /// Opens the database, creating it when missing. - Throws: as ``StoreLocation/open()``.
    func open() throws -> DefaultsStore { try location.open() }
    /// Opens it for a command that writes. - Throws: as ``StoreLocation/openForWriting()``.
    func openForWriting() throws -> DefaultsStore { try location.openForWriting() }
    /// Opens it when it exists, for a command that changes what exists.
    /// - Throws: as ``StoreLocation/openExistingForWriting()``.
    func openExistingForWriting() throws -> DefaultsStore? { try location.openExistingForWriting() }
    /// Opens it read-only when it exists. - Throws: as ``StoreLocation/openExisting()``.
    func openExisting() throws -> DefaultsStore? { try location.openExisting() }

    /// The app name used when neither `--db`, `--name` nor `PREFS_DB` is given.
    static var defaultName: String { StoreLocation.defaultName }
    /// The configuration every command opens with. See ``StoreLocation/configuration``.
    static var configuration: DefaultsStore.Configuration { StoreLocation.configuration }
    /// Opens a store and reports a set-aside WAL. - Throws: as ``StoreLocation/store(at:configuration:)``.
    static func store(at path: String, configuration: DefaultsStore.Configuration) throws -> DefaultsStore {
        try StoreLocation.store(at: path, configuration: configuration)
    }
}

/// The database a command works on, from `--db` and `--name` as given (nil when absent): the
/// rules of ``StoreOptions`` as plain values, so that `prefs read` can use them without
/// ArgumentParser (see `QuickRead`).
struct StoreLocation {
    /// `--db PATH`.
    var db: String?
    /// `--name APP`.
    var name: String?

    /// The app name used when neither `--db`, `--name` nor `PREFS_DB` is given.
    static let defaultName = "prefs"

    /// The environment variable that names a database file when neither `--db` nor `--name` does.
    static let environmentVariable = "PREFS_DB"

    /// Where the database path came from.
    enum Source: Equatable {
        /// `--db PATH`.
        case db
        /// `--name APP`.
        case name
        /// The `PREFS_DB` environment variable.
        case environment
        /// Nothing named a database: the standard database of the app `prefs`.
        case fallback
    }

    /// The database file's path and what named it.
    /// - Throws: `DefaultsError` (`.invalidName`) for a `--name` that is not one path component.
    func resolve() throws -> (path: String, source: Source) {
        if let db { return (db, .db) }
        if let name { return (try DefaultsStore.standardPath(name: name), .name) }
        if let path = ProcessInfo.processInfo.environment[Self.environmentVariable], !path.isEmpty {
            return (path, .environment)
        }
        return (try DefaultsStore.standardPath(name: Self.defaultName), .fallback)
    }

    /// The database file's path.
    /// - Throws: `DefaultsError` (`.invalidName`) for a `--name` that is not one path component.
    func path() throws -> String {
        try resolve().path
    }

    /// Opens the database, creating it (and its directory) when missing.
    /// - Throws: `DefaultsError` when it is a directory, not a database, has a newer schema, …
    func open() throws -> DefaultsStore {
        try Self.store(at: path(), configuration: Self.configuration)
    }

    /// Opens the database for a command that writes, creating it when missing; see
    /// ``announcedPath()``.
    /// - Throws: `DefaultsError` as ``open()`` does.
    func openForWriting() throws -> DefaultsStore {
        try Self.store(at: announcedPath(), configuration: Self.configuration)
    }

    /// Opens the database for a command that only changes what exists (`delete`, `rename`):
    /// nil when the file is missing, so nothing is created; see ``announcedPath()``.
    /// - Throws: `DefaultsError` when the file exists but cannot be opened as a database.
    func openExistingForWriting() throws -> DefaultsStore? {
        let path = try announcedPath()
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Self.store(at: path, configuration: Self.configuration)
    }

    /// The path, after printing `prefs: using PATH` on standard error when nothing named the
    /// database (no `--db`, `--name` or `PREFS_DB`), so that a write never lands in the
    /// fallback file unannounced. Standard output stays clean.
    /// - Throws: `DefaultsError` (`.invalidName`) for a `--name` that is not one path component.
    private func announcedPath() throws -> String {
        let (path, source) = try resolve()
        if source == .fallback {
            Console.err("prefs: using \(ValueFormatting.escaped(path))")  // one line, whatever the path holds
        }
        return path
    }

    /// The tool reports every error itself, as one `prefs: ` line; the library's own log
    /// lines would break that rule, so they are silenced.
    static var configuration: DefaultsStore.Configuration {
        var configuration = DefaultsStore.Configuration()
        configuration.logger = Logger(label: "prefs", factory: { _ in SwiftLogNoOpLogHandler() })
        return configuration
    }

    /// The configuration of commands that only read: nothing in the file is created,
    /// migrated or converted (see `DefaultsStore.Configuration.isReadOnly`).
    static var readOnlyConfiguration: DefaultsStore.Configuration {
        var configuration = configuration
        configuration.isReadOnly = true
        return configuration
    }

    /// Opens the database read-only if its file exists, for commands that only read: a
    /// mistyped path then reads as an empty store instead of leaving a new file behind, and
    /// nothing in an existing file is created, migrated or converted.
    /// - Throws: `DefaultsError` when the file exists but cannot be opened as a database
    ///   (another program's database included).
    func openExisting() throws -> DefaultsStore? {
        let path = try path()
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Self.store(at: path, configuration: Self.readOnlyConfiguration)
    }

    /// Opens a store and says on standard error what the open did on its own that the user
    /// must know: a write-ahead log that did not belong to the file, moved aside.
    /// - Throws: `DefaultsError` as `DefaultsStore(path:configuration:)` does.
    static func store(at path: String, configuration: DefaultsStore.Configuration) throws -> DefaultsStore {
        let store = try DefaultsStore(path: path, configuration: configuration)
        if let notice = store.lastReportedError, notice.code == .walSetAside {
            Console.err("prefs: warning: " + notice.description)
        }
        return store
    }
}

/// The untyped key for one row: reads and writes its SQLite value as it is.
/// `nil` means the row does not exist (or holds NULL); setting `nil` removes it.
func rowKey(_ name: String) -> DefaultsKey<SQLiteValue?> {
    DefaultsKey<SQLiteValue?>(name)
}

extension DefaultsStore {
    /// Every stored key and its value, in key order, from one snapshot; rows that hold
    /// NULL are skipped (the library reads those as "no value").
    /// - Throws: `DefaultsError` when the table cannot be read.
    func allEntries() throws -> [(key: String, value: SQLiteValue)] {
        try entries().filter { $0.value != .null }.map { ($0.key, $0.value) }
    }
}
#endif
