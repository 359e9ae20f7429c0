import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs list [--json]`
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print every key with its storage class and value.",
        discussion: """
            One line per key, in key order: key, storage class, value (control characters \
            escaped; in TEXT that is not valid UTF-8, each invalid byte as \\x{FF}). With \
            --json, one JSON object mapping keys to values, exactly as `export` prints it.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print one JSON object, key → value, as `export` does.")
    var json = false

    func run() throws {
        let entries = try storeOptions.openExisting()?.allEntries() ?? []
        if json {
            try Console.out(ExportFormat.encodeObject(entries))
            return
        }
        let rows = entries.map { (ValueFormatting.escaped($0.key), $0.value.storageClass, ValueFormatting.displayRepresentation($0.value)) }
        let keyWidth = min(rows.map(\.0.count).max() ?? 0, 40)
        var output = ""
        for (key, storageClass, value) in rows {
            let columns = value.isEmpty ? [key.padding(to: keyWidth), storageClass] : [key.padding(to: keyWidth), storageClass.padding(to: 7), value]
            output += columns.joined(separator: "  ") + "\n"
        }
        try Console.outRaw(output)
    }
}

extension String {
    /// The string with spaces added up to `width` characters (never cut).
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
