#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `prefs watch [KEY…] [--json] [--ready]`
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each committed change, from any writer, until interrupted.",
        discussion: """
            One line per change of the named keys (every key when none is named), made by any \
            writer: this machine's other processes, other programs using the library, or plain \
            SQL from the sqlite3 shell. Each line is printed and flushed the moment the change \
            arrives, pipes included; a failed write to standard output stops it with status 1. \
            Changes of one key that commit while the watcher cannot read (stopped with SIGSTOP, \
            or busy) arrive as one line with the newest value. When the database file is \
            replaced (mv other.sqlite db.sqlite), it says so on standard error, prints every \
            watched key whose value differs in the new file and goes on watching that file; if \
            the file was deleted or its replacement cannot be opened, it exits 1. Human lines \
            read `<time> <origin> <key> = <value> (<class>)` or `<time> <origin> <key> removed`. With --json each line is one JSON object: \
            {"key": …, "value": …, "origin": "local"|"external", "time": "<ISO 8601 UTC>", \
            "writer": {"kind": "library"|"sql"|"fleet", "pid", "program", "user", "host"}}, \
            the value in the export format, null when the key was removed; writer fields absent \
            when unknown, and "writer" itself when the writer is not known at all (after a \
            replaced file or a full comparison); "actor" and "reason" (who the change was made \
            for, and why; see `write --reason`) follow, each absent when unknown, and end a \
            human line as ` for alice: "why"` (the reason on one line, escaped). A change of a \
            secret key (`declare --secret`) says that it changed, never to what: \
            `<key> = (secret)`, in JSON "value": null with "secret": true. \
            Stops and exits 0 on SIGINT (Ctrl-C) or SIGTERM.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The keys to watch (default: every key).")
    var keys: [String] = []

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Print `ready` on standard error once changes are being watched, so a script knows when to start writing.")
    var ready = false

    func validate() throws {
        if keys.contains("") { throw ValidationError("a key to watch must not be empty") }
    }

    func run() async throws {
        let path = try storeOptions.path()
        let filter = Set(keys)
        let follower = try ReplacedFileFollower(path: path, configuration: StoreOptions.configuration) { key in
            filter.isEmpty || filter.contains(key)
        }
        let trap = SignalTrap([SIGINT, SIGTERM], handler: { [stop = follower.stop] _ in stop() })

        if ready {
            Console.err("ready")
        } else if Console.standardErrorIsTerminal {
            let what = keys.isEmpty ? "every key" : keys.map(ValueFormatting.quoted).joined(separator: ", ")
            Console.err("Watching \(what) in \(path). Press Ctrl-C to stop.")
        }
        let json = self.json
        try await follower.run { change, isSecret in
            try Console.out(WatchFormat.line(for: change, receivedAt: Date(), json: json, isSecret: isSecret))
        }
        withExtendedLifetime(trap) {}
    }

}
#endif
