#if Prefs
import ArgumentParser
import SQLiteDefaults

/// `prefs _write-loop KEY`: hidden helper for `demo`'s durability step.
///
/// Writes INTEGER 1, 2, 3, … to KEY, printing each number on standard output only after
/// `set` has returned (the write is committed). Whatever it has printed when it is killed
/// with SIGKILL must still be in the database afterwards.
struct WriteLoopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_write-loop",
        abstract: "Write 1, 2, 3, … to a key, printing each number once it is committed (used by `demo`).",
        shouldDisplay: false
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The key to write.")
    var key: String

    @Option(help: "How many writes to make before stopping.")
    var count: Int64 = 1_000_000

    func validate() throws {
        if key.isEmpty { throw ValidationError("the key must not be empty") }
    }

    func run() throws {
        let store = try storeOptions.open()
        let key = rowKey(self.key)
        guard count > 0 else { return }
        for number in 1...count {
            try store.set(.integer(number), for: key)
            try Console.out(String(number))
        }
    }
}
#endif
