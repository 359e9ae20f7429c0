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
            --json, one JSON object mapping keys to values, exactly as `export` prints it \
            (refused, as by export, when a key is not valid UTF-8).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print one JSON object, key → value, as `export` does.")
    var json = false

    func run() throws {
        let store = try storeOptions.openExisting()
        let entries = try store?.allEntries() ?? []
        let invalidKeys = try store?.keysNotValidUTF8() ?? []
        if json {
            if let key = invalidKeys.first { throw PrefsError.keyNotInJSON(key) }
            try Console.out(ExportFormat.encodeObject(entries))
            return
        }
        // A key that is not valid UTF-8 reaches us with U+FFFD for its invalid bytes: show the
        // bytes it really has, escaped, unless that replaced name is itself a stored key.
        var shownKeys: [String: String] = [:]
        for bytes in invalidKeys {
            let replaced = String(decoding: bytes, as: UTF8.self)
            if store?.contains(rowKey(replaced)) == false { shownKeys[replaced] = ValueFormatting.escaped(invalidUTF8: bytes) }
        }
        let rows = entries.map {
            (shownKeys[$0.key] ?? ValueFormatting.escaped($0.key), $0.value.storageClass, ValueFormatting.displayRepresentation($0.value))
        }
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
