#if Prefs && Console
import ArgumentParser
import PrefsFormats
import SQLiteDefaultsConsole

/// `prefs token add|list|remove … --tokens FILE`: the people and services `prefs serve --tokens
/// FILE` lets in.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Add, list and remove the tokens of a console's tokens file.",
        discussion: """
            A tokens file (for `prefs serve --tokens FILE`) holds one JSON object a line: a \
            name, a role (read: the page, every GET of the API and the event stream; write: \
            also changing and removing the keys under its prefixes, every key when it has \
            none; admin: everything), the prefixes, and a salted SHA-256 hash of the token, \
            never the token. A prefix is a plain prefix of the key's name: `feature` matches \
            `feature.beta` and `featureless`, `feature.` only the first. The file is created \
            with mode 0600 and replaced whole on each change; it is refused when its group or \
            others may read it. A running `prefs serve --tokens FILE` reads it again when it \
            changes: an added token works at once, a removed one (and its sessions) stops.
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    /// `prefs token add NAME --role ROLE [--prefix P]… --tokens FILE`
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a token; print it, once, alone on the last line of standard output.",
            discussion: """
                Creates FILE (mode 0600) when it does not exist. The token (`sqd_` and 32 hex \
                digits: 128 random bits) is printed once; the file keeps only a salted hash of it. \
                A NAME the file holds already is refused: remove it first.
                """
        )

        @Argument(help: ArgumentHelp("Who holds the token: a person or a service.", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("read, write or admin.", valueName: "role"))
        var role: String

        @Option(name: .customLong("prefix"), help: ArgumentHelp("For role write: a key prefix it may change (repeat for more; none: every key).", valueName: "prefix"))
        var prefixes: [String] = []

        @Option(help: ArgumentHelp("The tokens file.", valueName: "file"))
        var tokens: String

        func run() throws {
            guard let role = ConsoleRole(rawValue: role) else {
                throw PrefsError("--role must be read, write or admin (got \(ValueFormatting.quoted(role)))")
            }
            if !prefixes.isEmpty && role != .write {
                throw PrefsError("--prefix limits a write token; a \(role.rawValue) token takes none")
            }
            let token = try TokenCommand.updating(tokens) { tokens throws(ConsoleTokensError) in
                try tokens.add(name: name, role: role, prefixes: prefixes)
            }
            let scope = prefixes.isEmpty ? "" : " for keys starting with " + prefixes.map(ValueFormatting.quoted).joined(separator: " or ")
            Console.err("prefs: added \(ValueFormatting.quoted(name)) (\(role.rawValue)\(scope)) to \(ValueFormatting.quoted(self.tokens)); its token, shown this once:")
            try Console.out(token)
        }
    }

    /// `prefs token list --tokens FILE [--json]`
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the tokens' names, roles and prefixes (never a token or its hash).")

        @Option(help: ArgumentHelp("The tokens file.", valueName: "file"))
        var tokens: String

        @Flag(help: "Print a JSON array of {\"name\", \"role\", \"prefixes\"}.")
        var json = false

        func run() throws {
            let loaded: ConsoleTokens
            do {
                loaded = try ConsoleTokens.load(from: tokens, allowMissing: true)
            } catch {
                throw PrefsError(error.message)
            }
            if json {
                try Console.out(loaded.listingJSON)
            } else {
                for line in loaded.listing { try Console.out(line) }
            }
        }
    }

    /// `prefs token remove NAME --tokens FILE`
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a token; a running console refuses it (and its sessions) at once.")

        @Argument(help: ArgumentHelp("The token's name.", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("The tokens file.", valueName: "file"))
        var tokens: String

        func run() throws {
            try TokenCommand.updating(tokens) { tokens throws(ConsoleTokensError) in
                try tokens.remove(name: name)
            }
        }
    }

    /// ``ConsoleTokens/update(at:_:)``, its error as a one-line `PrefsError`.
    @discardableResult
    static func updating<Result>(_ path: String, _ change: (inout ConsoleTokens) throws(ConsoleTokensError) -> Result) throws -> Result {
        do {
            return try ConsoleTokens.update(at: path, change)
        } catch {
            throw PrefsError(error.message)
        }
    }
}
#endif
