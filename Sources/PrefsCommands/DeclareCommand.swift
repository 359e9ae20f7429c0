#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs declare KEY --type TYPE [--default VALUE] [--summary TEXT] [--allowed V1,V2,…] [--allow V]… [--secret | --no-secret]`
struct DeclareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "declare",
        abstract: "Declare a key's type, default and summary; the database then refuses other values.",
        discussion: """
            The declaration is kept in the file (table defaults_schema) and enforced by the \
            database for every client: prefs, the library, the sqlite3 shell, Python. A value \
            already stored that does not fit exits 1 and changes nothing. Declaring what is \
            already declared changes nothing. --default, --allowed and --allow are read as \
            --type reads values (see `write`). Allowed values apply to int, string and url keys: \
            --allowed takes a comma-separated list whose entries are refused when empty or \
            padded with spaces ("light,dark", not "light, dark"); --allow takes one value as it \
            is, and may be repeated, for a value with a comma, a space at either end, or the \
            empty string. Both may be given; the values are kept in order, each once. \
            --secret declares the key's value a secret: `read` and `export --include-secrets` \
            still print it, every other output masks it (`list`, `list --json`, `watch`, \
            `history`, `describe`, `export`), and the file's history keeps only a keyed digest \
            of each value it had, never the value; declaring a key secret scrubs the values of \
            its earlier history entries. Declaring a secret key again without --secret keeps it \
            secret; --no-secret makes its later changes plain again (the entries already masked \
            stay masked), as `undeclare` does.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to declare.")
    var key: String

    @Option(name: .long, help: ArgumentHelp("The key's type.", valueName: "type"))
    var type: ValueType

    @Option(name: .customLong("default"), help: ArgumentHelp("The value read while the key is unset.", valueName: "value"))
    var defaultText: String?

    @Option(name: .long, help: ArgumentHelp("What the key is for.", valueName: "text"))
    var summary: String?

    @Option(name: .long, help: ArgumentHelp("The only values allowed, comma-separated, none empty or space-padded.", valueName: "v1,v2,…"))
    var allowed: String?

    @Option(name: .customLong("allow"), help: ArgumentHelp("One more allowed value, taken as it is (commas and spaces included); repeatable.", valueName: "value"))
    var allow: [String] = []

    @Flag(inversion: .prefixedNo, help: "Whether the key's value is a secret, masked in every output but `read` (default: as declared, else no).")
    var secret: Bool?

    func validate() throws {
        if key.isEmpty { throw ValidationError("the key must not be empty") }
    }

    /// The declaration the arguments describe; checked before any file is opened.
    func declaration() throws -> DefaultsDeclaration {
        let defaultValue = try defaultText.map { text -> SQLiteValue in
            do { return try type.parse(text) } catch {
                throw PrefsError("the default for key \(ValueFormatting.quoted(key)) is not a \(type.rawValue): \((error as? FormatError)?.message ?? "\(error)")")
            }
        }
        return DefaultsDeclaration(key: key, type: type, defaultValue: defaultValue, summary: summary,
                                   allowedValues: try allowedValues())
    }

    /// The values of `--allowed` (each entry checked: neither empty nor space-padded, which a
    /// list typed as "light, dark" would silently make part of a value) and of every `--allow`
    /// (as given), in order, each once; nil when neither option is given.
    func allowedValues() throws -> [String]? {
        guard allowed != nil || !allow.isEmpty else { return nil }
        var listed: [String] = []
        if let allowed {
            for item in allowed.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                if item.isEmpty {
                    throw PrefsError("--allowed \(ValueFormatting.quoted(allowed)) for key \(ValueFormatting.quoted(key)) has an empty entry; to allow the empty string, use --allow \"\"")
                }
                if let first = item.first, let last = item.last, first.isWhitespace || last.isWhitespace {
                    throw PrefsError("--allowed entry \(ValueFormatting.quoted(item)) for key \(ValueFormatting.quoted(key)) has spaces around it; write the list without them (a,b), or give such a value with --allow")
                }
                listed.append(item)
            }
        }
        var values: [String] = []
        for text in listed + allow {
            let stored: SQLiteValue
            do { stored = try type.parse(text) } catch {
                throw PrefsError("the allowed value \(ValueFormatting.quoted(text)) for key \(ValueFormatting.quoted(key)) is not a \(type.rawValue): \(error.message)")
            }
            let value: String
            switch stored {
            case .integer(let number): value = String(number)
            case .text(let text): value = text
            default: throw PrefsError("allowed values apply only to int, string and url keys; \(ValueFormatting.quoted(key)) is \(type.rawValue)")
            }
            if !values.contains(value) { values.append(value) }
        }
        return values
    }

    func run() throws {
        var declaration = try declaration()
        let store = try storeOptions.openForWriting()
        // A secret stays secret unless --no-secret says otherwise: declaring a key again to
        // change its summary must not unmask it.
        var wasSecret = false
        do {
            try store.transaction { _ in
                wasSecret = try store.declaration(for: key)?.isSecret ?? false
                declaration.isSecret = secret ?? wasSecret
                try store.declare(declaration)
            }
        } catch let error as DefaultsError where error.code == .declarationConflict && (wasSecret || declaration.isSecret) {
            // The library's message quotes the stored value; a secret's is not repeated.
            throw PrefsError("key \(ValueFormatting.quoted(key)) holds a value that the declaration as \(declaration.type) refuses; nothing was changed")
        }
    }
}

/// `prefs undeclare KEY`
struct UndeclareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undeclare",
        abstract: "Remove a key's declaration; its value stays, and any value is accepted again.",
        discussion: """
            A key that is not declared exits with status 1. Undeclaring a secret key makes it \
            plain from then on: its history entries written while it was secret stay masked \
            (the history never had those values), and its later changes are recorded, listed \
            and watched with their values.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to undeclare.")
    var key: String

    func validate() throws {
        if key.isEmpty { throw ValidationError("the key must not be empty") }
    }

    func run() throws {
        // A row of a type prefs does not know is a declaration too (one that refuses every value).
        guard let store = try storeOptions.openExistingForWriting(),
              try store.declaration(for: key) != nil || store.declarationsOfUnknownTypeByBytes()[HashedKey(key)] != nil else {
            throw PrefsError("key \(ValueFormatting.quoted(key)) is not declared")
        }
        try store.undeclare(key)
    }
}
#endif
