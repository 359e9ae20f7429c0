#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs delete KEY` | `prefs delete --all`
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove a key and its value, or every key with --all.",
        usage: "prefs delete [--db <path>] [--name <app>] (<key> [--if-seq <n>] | --all) [--reason <text>]",
        discussion: """
            A key with no value exits with status 1, like `read`. --all removes every row in \
            one transaction, a key another client wrote as bytes that are not valid UTF-8 \
            included: observers hear each key once, and a failure removes none. A single key \
            that is not valid UTF-8 is named as `list` shows it, each invalid byte as \\x{FF}. \
            The history records each removal with its actor ($PREFS_ACTOR, else your login \
            name) and --reason, if given. --if-seq N removes the key only while it is still at \
            version N (see `write`): otherwise exit 3, one line naming its version now, and \
            nothing removed.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to remove.")
    var key: String?

    @Flag(help: "Remove every key, in one transaction.")
    var all = false

    @OptionGroup var attribution: AttributionOptions

    @Option(name: .customLong("if-seq"), help: ArgumentHelp(
        "Remove the key only if it is still at this version (its newest change's seq); else exit 3.", valueName: "n"))
    var ifSeq: Int64?

    func validate() throws {
        switch (key, all) {
        case (nil, false): throw ValidationError("name the key to delete, or use --all for every key")
        case (.some, true): throw ValidationError("give either a key or --all, not both")
        case (.some(""), false): throw ValidationError("the key must not be empty")
        default: break
        }
        if all, ifSeq != nil { throw ValidationError("--if-seq checks one key; it cannot be used with --all") }
        if let ifSeq, ifSeq < 0 { throw ValidationError("--if-seq must not be negative") }
    }

    func run() throws {
        let attributed = try attribution.resolved()
        if all {
            guard let store = try storeOptions.openExistingForWriting() else { return }
            // By the library, not key by key: a key that is not valid UTF-8 has no String
            // that names it, and would survive a loop over `entries()`.
            try store.transaction(attributed) { _ in try store.removeAll() }
            return
        }
        guard let name = key else { return }  // validate() saw to it
        guard let store = try storeOptions.openExistingForWriting() else {
            // No file: no change of the key is kept, so only --if-seq 0 would have let it go on.
            if let ifSeq, ifSeq != 0 {
                throw PrefsError("key \(ValueFormatting.quoted(name)) is at version 0, not \(ifSeq); nothing was written",
                                 exitCode: PrefsError.versionConflictStatus)
            }
            throw PrefsError.missingKey(name)
        }
        let key = rowKey(name)
        try store.transaction(attributed) { transaction in
            // The escaped form of bytes that are not UTF-8 names that row when it exists (else the
            // key with that very text, below).
            if case .bytes(let bytes) = KeyAddress(parsing: name), try store.value(forKeyBytes: bytes) != nil {
                if ifSeq != nil {
                    throw PrefsError("--if-seq cannot check key \(ValueFormatting.quoted(name)), which is not valid UTF-8; nothing was written")
                }
                if try store.removeValue(forKeyBytes: bytes) { return }
            }
            try transaction.require(version: ifSeq, of: name)
            guard transaction.contains(key) else { throw PrefsError.missingKey(name) }
            try transaction.remove(key)
        }
    }
}
#endif
