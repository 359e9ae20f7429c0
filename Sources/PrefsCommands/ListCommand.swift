#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `prefs list [--json] [--declared] [--prefix P]`
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
            `(secret default)`, and --json leaves the key out, as `export` does. \
            With --prefix, only keys that start with the text. The rows are printed as they \
            are read from one snapshot, so a file of a million keys is listed in constant \
            memory.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print one JSON object, key → value, as `export` does.")
    var json = false

    @Flag(help: "Also list declared keys that are unset, with their default.")
    var declared = false

    @Option(help: ArgumentHelp("Only keys that start with this text.", valueName: "prefix"))
    var prefix: String?

    /// The widest key column, in characters, however long a key is.
    static let maximumKeyWidth = 40

    func run() throws {
        let store = try storeOptions.openExisting()
        let prefix = self.prefix ?? ""
        // Keyed by bytes, as SQLite tells keys apart: "é" and "e" + U+0301 are two keys, each
        // with its own declaration (or none).
        let declarations = Dictionary(try store?.declarations().map { (Data($0.key.utf8), $0) } ?? [], uniquingKeysWith: { first, _ in first })
        if json {
            if let key = try store?.keysNotValidUTF8().first(where: { $0.starts(with: Data(prefix.utf8)) }) { throw PrefsError.keyNotInJSON(key) }
            let sink = OutputSink.standardOutput()
            var first = true
            try store?.forEachEntry(prefix: prefix) { entry in
                guard entry.value != .null, declarations[entry.keyBytes]?.isSecret != true else { return }
                guard let key = entry.key else { throw PrefsError.keyNotInJSON(entry.keyBytes) }
                try sink.write((first ? "{\n  " : ",\n  ") + ExportFormat.quote(key) + ": " + ExportFormat.encode(entry.value))
                first = false
            }
            try sink.write(first ? "{}\n" : "\n}\n")
            try sink.flush()
            return
        }
        let unknownTypes = Dictionary(try (store?.declarationsOfUnknownTypeByBytes() ?? [:]).map { (Data($0.key.name.utf8), $0.value) }, uniquingKeysWith: { first, _ in first })
        let unset = declared ? unsetRows(declarations, unknownTypes, prefix: Data(prefix.utf8)) : []
        let keyWidth = try keyWidth(store, prefix: prefix, unset: unset)
        let sink = OutputSink.standardOutput()
        func emit(_ key: Data, _ shown: String, _ storageClass: String, _ value: String) throws {
            var columns = value.isEmpty ? [shown.padding(to: keyWidth), storageClass]
                : [shown.padding(to: keyWidth), storageClass.padding(to: 7), value]
            if let declaration = declarations[key] {
                columns.append(declaration.isSecret ? "[declared \(declaration.type), secret]" : "[declared \(declaration.type)]")
            } else if let unknown = unknownTypes[key] {
                columns.append("[declared unknown type \(ExportFormat.quote(unknown))]")
            }
            try sink.write(columns.joined(separator: "  ") + "\n")
        }
        // The stored rows stream from one snapshot; the declared keys that are unset (few)
        // are merged in, in the same byte order.
        var pending = unset[...]
        try store?.forEachEntry(prefix: prefix) { entry in
            guard entry.value != .null else { return }
            while let row = pending.first, !entry.keyBytes.lexicographicallyPrecedes(row.key) {
                pending.removeFirst()
                if row.key != entry.keyBytes { try emit(row.key, row.shown, "unset", row.value) }
            }
            let declaration = declarations[entry.keyBytes]
            let value = declaration?.isSecret == true ? "(secret)"
                : ValueFormatting.displayRepresentation(entry.value, declaredType: declaration?.type)
            try emit(entry.keyBytes, Self.shown(entry), entry.value.storageClass, value)
        }
        for row in pending { try emit(row.key, row.shown, "unset", row.value) }
        try sink.flush()
    }

    /// A stored key as the list shows it: escaped, a key that is not valid UTF-8 by its bytes.
    private static func shown(_ entry: DefaultsListedEntry) -> String {
        entry.key.map(ValueFormatting.escaped) ?? ValueFormatting.escaped(invalidUTF8: entry.keyBytes)
    }

    /// The declared keys under `prefix` (known types and unknown ones), in byte order, as
    /// `unset` rows with their default; those that turn out to be stored are dropped as the
    /// stored rows stream past.
    private func unsetRows(_ declarations: [Data: DefaultsDeclaration], _ unknownTypes: [Data: String],
                           prefix: Data) -> [(key: Data, shown: String, value: String)] {
        var rows: [(key: Data, shown: String, value: String)] = []
        for (key, declaration) in declarations where key.starts(with: prefix) {
            let shownDefault = declaration.isSecret && declaration.defaultValue != nil ? "(secret default)" : declaration.defaultValue.map {
                "(default " + ValueFormatting.displayRepresentation($0, declaredType: declaration.type) + ")"
            } ?? "(no default)"
            rows.append((key, ValueFormatting.escaped(declaration.key), shownDefault))
        }
        for key in unknownTypes.keys where key.starts(with: prefix) && declarations[key] == nil {
            rows.append((key, ValueFormatting.escaped(String(decoding: key, as: UTF8.self)), "(no default)"))
        }
        return rows.sorted { $0.key.lexicographicallyPrecedes($1.key) }
    }

    /// The key column's width: the widest key shown (at most ``maximumKeyWidth``), from a
    /// first pass over the keys that stops at that width.
    private func keyWidth(_ store: DefaultsStore?, prefix: String, unset: [(key: Data, shown: String, value: String)]) throws -> Int {
        struct Widest: Error {}
        var width = min(unset.map(\.shown.count).max() ?? 0, Self.maximumKeyWidth)
        do {
            try store?.forEachEntry(prefix: prefix) { entry in
                guard entry.value != .null else { return }
                width = max(width, min(Self.shown(entry).count, Self.maximumKeyWidth))
                if width == Self.maximumKeyWidth { throw Widest() }
            }
        } catch is Widest {}
        return width
    }
}

extension String {
    /// The string with spaces added up to `width` characters (never cut).
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
#endif
