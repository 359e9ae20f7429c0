#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs read KEY [--json]`
struct ReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print the value of a key.",
        discussion: """
            Prints the value as you would type it back into `write`: INTEGER as 42, REAL as 2.0 \
            or 1e-05, TEXT as it is (each byte that is \
            not valid UTF-8 as \\x{FF}), BLOB as base64. With --json, prints it in the export format, \
            which also shows its storage class. A key with no value prints its declared default \
            when it is declared with one (see `declare`); otherwise it exits with status 1. \
            A key that another client wrote as bytes that are not valid UTF-8 is named as \
            `list` shows it, each invalid byte as \\x{FF} (`prefs read '\\x{FF}key'`).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to read.")
    var key: String

    @Flag(help: "Print the value as JSON, as `export` does.")
    var json = false

    func validate() throws {
        if key.isEmpty { throw ValidationError("the key must not be empty") }
    }

    func run() throws {
        try Self.read(key, from: storeOptions.location, json: json)
    }

    /// Prints the value of `key` in the database `location` names, as `read` does; also the
    /// whole of `prefs read` when `QuickRead` takes the command line.
    /// - Throws: `PrefsError.missingKey` when there is no value and no declared default;
    ///   `DefaultsError` when the file cannot be opened; `PrefsError` when output fails.
    static func read(_ key: String, from location: StoreLocation, json: Bool) throws {
        guard let store = try location.openExisting() else { throw PrefsError.missingKey(key) }
        if case .bytes(let bytes) = KeyAddress(parsing: key), let value = try store.value(forKeyBytes: bytes) {
            try Console.out(json ? ExportFormat.encode(value) : ValueFormatting.readRepresentation(value))
            return
        }
        guard let value = try store.value(for: rowKey(key)) ?? store.declaration(for: key)?.defaultValue else {
            throw PrefsError.missingKey(key)
        }
        try Console.out(json ? ExportFormat.encode(value) : ValueFormatting.readRepresentation(value))
    }
}
#endif
