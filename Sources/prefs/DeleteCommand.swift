import ArgumentParser
import SQLiteDefaults

/// `prefs delete KEY`
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove a key and its value.",
        discussion: "A key with no value exits with status 1, like `read`."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to remove.")
    var key: String

    func run() throws {
        guard let store = try storeOptions.openExisting() else { throw PrefsError.missingKey(key) }
        let key = rowKey(self.key)
        try store.transaction { transaction in
            guard transaction.contains(key) else { throw PrefsError.missingKey(self.key) }
            try transaction.remove(key)
        }
    }
}
