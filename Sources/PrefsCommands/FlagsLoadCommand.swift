#if Prefs && Flags
import ArgumentParser
import Foundation
import SQLiteDefaults
import SQLiteDefaultsFlags

/// `prefs flags load FILE`
struct FlagsLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Make a flagd flag-set file the store's flags, in one transaction.",
        usage: "prefs flags load [--db <path>] [--name <app>] <file> [--reason <text>]",
        discussion: """
            A flag whose stored JSON is already the file's is not written (no history entry); \
            a changed flag is one change of its key; a flag the file no longer has is removed. \
            A file that is not a valid flag set (bad JSON, an unknown state, a defaultVariant \
            that is not a variant, variants of mixed types, a $ref to a missing evaluator) \
            exits 1 with one line and changes nothing. Prints what changed on one line.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The flag-set JSON file (flagd's format); - reads standard input.")
    var file: String

    @OptionGroup var attribution: AttributionOptions

    func run() throws {
        let attributed = try attribution.resolved()
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw PrefsError("cannot read \(file): \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw PrefsError("\(file): not UTF-8 text") }
        let set: FlagSet
        do {
            set = try FlagSet(json: text)
            try set.validateReferences()
        } catch {
            throw PrefsError("\(file): \(error)")
        }
        let store = try storeOptions.openForWriting()
        let summary: FlagLoadSummary
        do {
            summary = try DefaultsFlags(store: store).load(set, actor: attributed.actor, reason: attributed.reason)
        } catch .store(let error) {
            throw error
        } catch {
            throw PrefsError("\(file): \(error)")
        }
        print("\(set.flags.count) flags: \(summary.written.count) written, \(summary.removed.count) removed, \(summary.unchanged.count) unchanged")
    }
}
#endif
