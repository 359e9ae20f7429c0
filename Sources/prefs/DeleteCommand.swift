#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs delete KEY` | `prefs delete --all`
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove a key and its value, or every key with --all.",
        usage: "prefs delete [--db <path>] [--name <app>] (<key> | --all)",
        discussion: """
            A key with no value exits with status 1, like `read`. --all removes every row in \
            one transaction, a key another client wrote as bytes that are not valid UTF-8 \
            included: observers hear each key once, and a failure removes none. A single key \
            that is not valid UTF-8 is named as `list` shows it, each invalid byte as \\x{FF}.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to remove.")
    var key: String?

    @Flag(help: "Remove every key, in one transaction.")
    var all = false

    func validate() throws {
        switch (key, all) {
        case (nil, false): throw ValidationError("name the key to delete, or use --all for every key")
        case (.some, true): throw ValidationError("give either a key or --all, not both")
        case (.some(""), false): throw ValidationError("the key must not be empty")
        default: break
        }
    }

    func run() throws {
        if all {
            guard let store = try storeOptions.openExistingForWriting() else { return }
            // By the library, not key by key: a key that is not valid UTF-8 has no String
            // that names it, and would survive a loop over `entries()`.
            try store.removeAll()
            return
        }
        guard let name = key else { return }  // validate() saw to it
        guard let store = try storeOptions.openExistingForWriting() else { throw PrefsError.missingKey(name) }
        // The escaped form of bytes that are not UTF-8 names that row when it exists (else the
        // key with that very text, below).
        if case .bytes(let bytes) = KeyAddress(parsing: name), try store.removeValue(forKeyBytes: bytes) { return }
        let key = rowKey(name)
        try store.transaction { transaction in
            guard transaction.contains(key) else { throw PrefsError.missingKey(name) }
            try transaction.remove(key)
        }
    }
}
#endif
