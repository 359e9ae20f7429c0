#if Prefs && Flags
import ArgumentParser

/// `prefs flags load|eval|list`: flagd's flag sets kept in the store (SQLiteDefaultsFlags).
struct FlagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags",
        abstract: "Load, evaluate and list feature flags (flagd's flag sets).",
        discussion: """
            Each flag is its own key, flagd.flag.<flag key>, holding the flag's JSON; each \
            shared evaluator is flagd.evaluator.<name>; the flag set's metadata is \
            flagd.metadata. So every flag has history, shows in the console and travels \
            through the fleet like any key.
            """,
        subcommands: [FlagsLoadCommand.self, FlagsEvalCommand.self, FlagsListCommand.self]
    )
}
#endif
