#if Prefs
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
            (refused, as by export, when a key is not valid UTF-8). A declared key's line ends \
            with [declared TYPE], and a declared bool shows false or true for its 0 or 1; a \
            declaration whose type prefs does not know ends with [declared unknown type "T"] \
            (the database refuses every value for it). With --declared, declared keys that are unset are listed too, \
            as `unset` with their default. --json prints stored values only, as stored. \
            A secret key's value is never shown (`prefs read` prints it): its line reads \
            `(secret)` and ends with [declared TYPE, secret], an unset one's default reads \
            `(secret default)`, and --json leaves the key out, as `export` does.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print one JSON object, key → value, as `export` does.")
    var json = false

    @Flag(help: "Also list declared keys that are unset, with their default.")
    var declared = false

    func run() throws {
        let store = try storeOptions.openExisting()
        let entries = try store?.allEntries() ?? []
        let invalidKeys = try store?.keysNotValidUTF8() ?? []
        // Keyed by bytes, as SQLite compares keys: by `String`, NFC and NFD "café" (two rows)
        // would be one key, and one twin's declaration (secret or not) would speak for the other.
        let declarations = Dictionary(try store?.declarations().map { (HashedKey($0.key), $0) } ?? [], uniquingKeysWith: { first, _ in first })
        if json {
            if let key = invalidKeys.first { throw PrefsError.keyNotInJSON(key) }
            try Console.out(ExportFormat.encodeObject(entries.filter { declarations[HashedKey($0.key)]?.isSecret != true }))
            return
        }
        // A key that is not valid UTF-8 reaches us with U+FFFD for its invalid bytes: show the
        // bytes it really has, escaped, unless that replaced name is itself a stored key.
        var shownKeys: [HashedKey: String] = [:]
        for bytes in invalidKeys {
            let replaced = String(decoding: bytes, as: UTF8.self)
            if store?.contains(rowKey(replaced)) == false { shownKeys[HashedKey(replaced)] = ValueFormatting.escaped(invalidUTF8: bytes) }
        }
        let unknownTypes = try store?.declarationsOfUnknownTypeByBytes() ?? [:]
        var rows = entries.map {
            let declaration = declarations[HashedKey($0.key)]
            return (key: $0.key, shown: shownKeys[HashedKey($0.key)] ?? ValueFormatting.escaped($0.key), storageClass: $0.value.storageClass,
                    value: declaration?.isSecret == true ? "(secret)"
                        : ValueFormatting.displayRepresentation($0.value, declaredType: declaration?.type))
        }
        if declared {
            let stored = Set(entries.map { HashedKey($0.key) })
            for declaration in declarations.values where !stored.contains(HashedKey(declaration.key)) {
                let shownDefault = declaration.isSecret && declaration.defaultValue != nil ? "(secret default)" : declaration.defaultValue.map {
                    "(default " + ValueFormatting.displayRepresentation($0, declaredType: declaration.type) + ")"
                } ?? "(no default)"
                rows.append((declaration.key, ValueFormatting.escaped(declaration.key), "unset", shownDefault))
            }
            for key in unknownTypes.keys where !stored.contains(key) {
                rows.append((key.name, ValueFormatting.escaped(key.name), "unset", "(no default)"))
            }
            rows.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        }
        let keyWidth = min(rows.map(\.shown.count).max() ?? 0, 40)
        var output = ""
        for row in rows {
            var columns = row.value.isEmpty ? [row.shown.padding(to: keyWidth), row.storageClass]
                : [row.shown.padding(to: keyWidth), row.storageClass.padding(to: 7), row.value]
            if let declaration = declarations[HashedKey(row.key)] {
                columns.append(declaration.isSecret ? "[declared \(declaration.type), secret]" : "[declared \(declaration.type)]")
            } else if let unknown = unknownTypes[HashedKey(row.key)] {
                columns.append("[declared unknown type \(ExportFormat.quote(unknown))]")
            }
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
#endif
