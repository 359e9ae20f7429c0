import ArgumentParser
import Foundation
import Logging
import SQLiteDefaults

/// `--db PATH | --name APP`: which database a command works on, shared by every command.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database file to use.", valueName: "path"))
    var db: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Use the standard database of this app: $XDG_CONFIG_HOME/<app>/defaults.sqlite, or ~/.config/<app>/defaults.sqlite. (default: prefs)",
            valueName: "app"
        )
    )
    var name: String?

    /// The app name used when neither `--db` nor `--name` is given.
    static let defaultName = "prefs"

    func validate() throws {
        if db != nil && name != nil {
            throw ValidationError("--db and --name cannot be used together")
        }
        if let db, db.isEmpty {
            throw ValidationError("--db needs a file path")
        }
    }

    /// The database file's path.
    /// - Throws: `DefaultsError` (`.invalidName`) for a `--name` that is not one path component.
    func path() throws -> String {
        if let db { return db }
        return try DefaultsStore.standardPath(name: name ?? Self.defaultName)
    }

    /// Opens the database, creating it (and its directory) when missing.
    /// - Throws: `DefaultsError` when it is a directory, not a database, has a newer schema, …
    func open() throws -> DefaultsStore {
        try DefaultsStore(path: path(), configuration: Self.configuration)
    }

    /// The tool reports every error itself, as one `prefs: ` line; the library's own log
    /// lines would break that rule, so they are silenced.
    static var configuration: DefaultsStore.Configuration {
        var configuration = DefaultsStore.Configuration()
        configuration.logger = Logger(label: "prefs", factory: { _ in SwiftLogNoOpLogHandler() })
        return configuration
    }

    /// Opens the database if its file exists, for commands that only read: a mistyped path
    /// then reads as an empty store instead of leaving a new file behind.
    func openExisting() throws -> DefaultsStore? {
        let path = try path()
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try DefaultsStore(path: path, configuration: Self.configuration)
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
    func allEntries() throws -> [(key: String, value: SQLiteValue)] {
        try entries().filter { $0.value != .null }
    }
}
