import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs declare KEY --type TYPE [--default VALUE] [--summary TEXT] [--allowed V1,V2,…]`
struct DeclareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "declare",
        abstract: "Declare a key's type, default and summary; the database then refuses other values.",
        discussion: """
            The declaration is kept in the file (table defaults_schema) and enforced by the \
            database for every client: prefs, the library, the sqlite3 shell, Python. A value \
            already stored that does not fit exits 1 and changes nothing. Declaring what is \
            already declared changes nothing. --default and --allowed are read as --type reads \
            values (see `write`); --allowed takes a comma-separated list (int, string or url keys).
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

    @Option(name: .long, help: ArgumentHelp("The only values allowed, comma-separated.", valueName: "v1,v2,…"))
    var allowed: String?

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
        let allowedValues = try allowed.map { list -> [String] in
            try list.split(separator: ",", omittingEmptySubsequences: false).map { item -> String in
                let text = String(item)
                let stored: SQLiteValue
                do { stored = try type.parse(text) } catch {
                    throw PrefsError("the allowed value \(ValueFormatting.quoted(text)) for key \(ValueFormatting.quoted(key)) is not a \(type.rawValue): \((error as? FormatError)?.message ?? "\(error)")")
                }
                switch stored {
                case .integer(let number): return String(number)
                case .text(let text): return text
                default: throw PrefsError("allowed values apply only to int, string and url keys; \(ValueFormatting.quoted(key)) is \(type.rawValue)")
                }
            }
        }
        return DefaultsDeclaration(key: key, type: type, defaultValue: defaultValue, summary: summary,
                                   allowedValues: allowedValues)
    }

    func run() throws {
        let declaration = try declaration()
        let store = try storeOptions.openForWriting()
        try store.declare(declaration)
    }
}

/// `prefs undeclare KEY`
struct UndeclareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undeclare",
        abstract: "Remove a key's declaration; its value stays, and any value is accepted again.",
        discussion: "A key that is not declared exits with status 1."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to undeclare.")
    var key: String

    func validate() throws {
        if key.isEmpty { throw ValidationError("the key must not be empty") }
    }

    func run() throws {
        guard let store = try storeOptions.openExistingForWriting(), try store.declaration(for: key) != nil else {
            throw PrefsError("key \(ValueFormatting.quoted(key)) is not declared")
        }
        try store.undeclare(key)
    }
}
