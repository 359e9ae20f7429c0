#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs write KEY VALUE [--type TYPE]`
struct WriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Set the value of a key.",
        usage: "prefs write [--db <path>] [--name <app>] <key> <value> [--type <type>] [--reason <text>] [--if-seq <n>]",
        discussion: """
            The value is stored as a native SQLite value of its --type, the way the library \
            stores that Swift type: bool → INTEGER 1/0 (true/false, yes/no, on/off, 1/0); \
            int → INTEGER; double → REAL; string (the default) → TEXT; json → TEXT, after \
            checking it is valid JSON; data → BLOB, from base64; date → REAL seconds since \
            1970, from ISO 8601 (2024-05-01T10:30:00Z, 2024-05-01T10:30:00.25+02:00, \
            2024-05-01) or `now`; url → TEXT, after checking it is an absolute URL. \
            The write is on disk when the command returns. A value may start with a dash \
            (prefs write offset -5 --type int); put `--` before a key that does. \
            A declared key (see `declare`) reads the value as its declared type without \
            --type; a value (or a --type) the declaration refuses exits 1, naming the key and \
            the type, and writes nothing. A key that another client wrote as bytes that are \
            not valid UTF-8 is named as `list` shows it, each invalid byte as \\x{FF}: its row \
            is changed (no such key is ever created; without that row the text names itself). \
            The history records the change with its actor ($PREFS_ACTOR, else your login \
            name) and --reason, if given (at most 16,384 bytes; longer exits 1 and writes \
            nothing). --if-seq N writes only when the key is still at version N (the `seq` of \
            its newest change, as `prefs history KEY --limit 1 --json` shows it; \
            0: no change of it is kept, so the write only creates it): the check and the write \
            are one transaction, and when another writer got there first it exits 3 with one \
            line naming the key's version now, and writes nothing. A secret key's value (see \
            `declare --secret`) is written as any other; the history keeps only a digest of it.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to set.")
    var key: String

    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The value, written as its --type expects.", valueName: "value"))
    var values: [String] = []

    @Option(name: .long, help: ArgumentHelp("How to read the value (default: the declared type, else string).", valueName: "type"))
    var type: ValueType?

    @OptionGroup var attribution: AttributionOptions

    @Option(name: .customLong("if-seq"), help: ArgumentHelp(
        "Write only if the key is still at this version (its newest change's seq; 0: none kept); else exit 3.", valueName: "n"))
    var ifSeq: Int64?

    /// The one value. It is collected with `.allUnrecognized` so that a negative number
    /// (`write offset -5 --type int`) is taken as the value, not as an unknown option.
    var value: String {
        get throws {
            var values = self.values
            if let terminator = values.firstIndex(of: "--") { values.remove(at: terminator) }
            guard values.count == 1, let value = values.first else {
                if values.isEmpty { throw ValidationError("Missing expected argument '<value>'") }
                if let option = values.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
                    throw ValidationError("Unknown option '\(option)'")
                }
                throw ValidationError("Unexpected argument '\(values[1])'")
            }
            return value
        }
    }

    func validate() throws {
        // Before anything is opened: a refused command leaves no new database behind.
        if key.isEmpty { throw ValidationError("the key must not be empty") }
        _ = try value
        if let ifSeq, ifSeq < 0 { throw ValidationError("--if-seq must not be negative") }
    }

    func run() throws {
        let text = try value
        let attributed = try attribution.resolved()
        // Before opening: with --type, bad input creates no database. Without it the value
        // waits for the key's declaration, if any.
        let parsed = try type?.parse(text)
        let store = try storeOptions.openForWriting()
        try store.transaction(attributed) { transaction in
            if case .bytes(let bytes) = KeyAddress(parsing: key), try store.value(forKeyBytes: bytes) != nil {
                if ifSeq != nil {
                    throw PrefsError("--if-seq cannot check key \(ValueFormatting.quoted(key)), which is not valid UTF-8; nothing was written")
                }
                guard try store.replaceValue(try parsed ?? ValueType.string.parse(text), forKeyBytes: bytes) else {
                    throw PrefsError.missingKey(key)
                }
                return
            }
            try transaction.require(version: ifSeq, of: key)
            let stored: SQLiteValue
            if let declaration = try store.declaration(for: key) {
                stored = try DeclaredValue.parse(text, explicitType: type, for: declaration)
            } else {
                stored = try parsed ?? ValueType.string.parse(text)
            }
            try transaction.set(stored, for: rowKey(key))
        }
    }
}
#endif
