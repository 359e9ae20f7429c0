#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs read-type KEY`
struct ReadTypeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read-type",
        abstract: "Print the storage class of a key's value.",
        discussion: """
            Prints integer, real, text or blob: SQLite's name for the class, as its typeof() \
            reports it. A key with no value exits with status 1, like `read`.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key whose storage class to print.")
    var key: String

    func validate() throws {
        if key.isEmpty { throw ValidationError("the key must not be empty") }
    }

    func run() throws {
        guard let store = try storeOptions.openExisting(), let value = try store.value(for: rowKey(key)) else {
            throw PrefsError.missingKey(key)
        }
        try Console.out(value.storageClass)
    }
}
#endif
