#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs rename OLD NEW [--force]`
struct RenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Move a key's value to a new key, atomically.",
        discussion: """
            One transaction removes OLD and sets NEW to its value, with its storage class \
            unchanged: every reader sees either both keys as they were or the rename done, and \
            observers hear both keys (OLD removed, NEW set). A missing OLD exits with status 1. \
            When NEW already has a value the rename is refused, unless --force replaces it. \
            The history records both changes with their actor ($PREFS_ACTOR, else your login \
            name) and --reason, if given. A secret key stays secret under its new name: when \
            OLD is declared secret, the same transaction first declares NEW as OLD is declared \
            (or, when NEW is declared already, marks that declaration secret), so NEW's value \
            never reaches its history in plain text; OLD keeps its declaration.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to rename.")
    var old: String

    @Argument(help: "Its new name.")
    var new: String

    @Flag(help: "Replace NEW's value when it has one.")
    var force = false

    @OptionGroup var attribution: AttributionOptions

    func validate() throws {
        if old == new { throw ValidationError("the old and new key are the same") }
        if new.isEmpty { throw ValidationError("the new key must not be empty") }
        if old.isEmpty { throw ValidationError("the key to rename must not be empty") }
    }

    func run() throws {
        let attributed = try attribution.resolved()
        guard let store = try storeOptions.openExistingForWriting() else { throw PrefsError.missingKey(old) }
        let oldKey = rowKey(old), newKey = rowKey(new)
        try store.transaction(attributed) { transaction in
            guard let value = try transaction.value(for: oldKey) else { throw PrefsError.missingKey(old) }
            if !force, transaction.contains(newKey) {
                throw PrefsError("key \(ValueFormatting.quoted(new)) already has a value; use --force to replace it")
            }
            // Secret under its new name before its value is written there (declarations join
            // this transaction: a refusal below undoes the declaration too).
            if let declared = try store.declaration(for: old), declared.isSecret {
                if var existing = try store.declaration(for: new) {
                    if !existing.isSecret {
                        existing.isSecret = true
                        try store.declare(existing)
                    }
                } else {
                    var moved = declared
                    moved.key = new
                    try store.declare(moved)
                }
            }
            try transaction.remove(oldKey)
            try transaction.set(value, for: newKey)
        }
    }
}
#endif
