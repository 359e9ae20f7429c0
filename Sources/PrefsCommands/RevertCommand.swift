#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs revert KEY [--to SEQ]`
struct RevertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Write back a key's earlier value, as a new change.",
        discussion: """
            Writes back the value KEY had just before its newest change (with --to SEQ, the \
            value that change SEQ wrote; a removal removes the key again), as a new change that \
            the history records. Exits 1 with one line when there is nothing to go back to \
            (no earlier change in the history), when SEQ is not a change of KEY, or when that \
            value was too large for the history to keep. Reading the history and writing happen \
            in one transaction, recorded with its actor ($PREFS_ACTOR, else your login name) \
            and --reason, if given. A secret key's earlier value is opened from the history's \
            sealed copy and written back without being printed anywhere.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to revert.")
    var key: String

    @Option(name: .customLong("to"), help: "The change (its sequence number in `prefs history`) whose value to write back.")
    var sequence: Int64?

    @OptionGroup var attribution: AttributionOptions

    func validate() throws {
        if key.isEmpty { throw ValidationError("the key must not be empty") }
    }

    func run() throws {
        let quoted = ValueFormatting.quoted(key)
        let attributed = try attribution.resolved()
        guard let store = try storeOptions.openExistingForWriting() else {
            throw PrefsError("nothing to go back to: the history has no change of key \(quoted)")
        }
        let row = rowKey(key)
        try store.transaction(attributed) { transaction in
            let target: DefaultsHistoryEntry<SQLiteValue>
            if let sequence {
                guard let found = try store.history(keys: [key], limit: .max).first(where: { $0.sequence == sequence }) else {
                    throw PrefsError("change \(sequence) is not a change of key \(quoted) in the history")
                }
                target = found
            } else {
                let newest = try store.history(keys: [key], limit: 2)
                guard newest.count == 2 else {
                    throw PrefsError("nothing to go back to: the history has no change of key \(quoted) before its newest")
                }
                target = newest[1]
            }
            switch target.value {
            case .tooLargeToKeep(let omitted):
                throw PrefsError("the value change \(target.sequence) wrote was \(omitted) bytes; the history keeps only its size, so it cannot be written back")
            case .value(let stored), .undecodable(let stored):
                try transaction.set(stored, for: row)
            case .secret:
                // Opened from the history's sealed copy, written back, and never printed.
                try transaction.set(try store.value(writtenBy: target.sequence), for: row)
            case .removed:
                try transaction.set(nil, for: row)
            }
        }
    }
}
#endif
