#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `prefs watch [KEY…] [--prefix P] [--since SEQ] [--json] [--ready]`
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print each committed change, from any writer, until interrupted.",
        discussion: """
            One line per committed change of the named keys and of the keys starting with \
            --prefix (every key when neither is given), made by any writer: this machine's other \
            processes, other programs using the library, or plain SQL from the sqlite3 shell. \
            The changes are read from the file's history, in commit order, one line each, never \
            merged: a watcher stopped with SIGSTOP (or busy) prints, when it resumes, every \
            change it missed. --since SEQ first prints every change the history keeps after \
            sequence SEQ, then goes on live (`history --json` and `watch --json` name each \
            change's "seq"); when the history no longer keeps the changes after SEQ (it keeps \
            the newest 10,000 by default), or SEQ is newer than its newest change, it exits 1 \
            with one line naming the oldest kept: --since promises every change, or that \
            error. Without --since it follows from now on and never stops for the history: when \
            one transaction commits more changes than the history keeps (a 20,000-key import) \
            or the file goes back to an older state, it says on standard error that those \
            changes cannot be shown one by one (read the current values with `prefs list` or \
            `prefs export`) and goes on from the newest change. Each line is printed and flushed the moment \
            the change arrives, pipes included; a failed write to standard output stops it \
            with status 1. When the database file is \
            replaced (mv other.sqlite db.sqlite), it says so on standard error, prints every \
            watched key whose value differs in the new file and goes on watching that file; if \
            the file was deleted or its replacement cannot be opened, it exits 1. Human lines \
            read `<time> <origin> <key> = <value> (<class>)` or `<time> <origin> <key> removed`, \
            the time being the change's commit time (the writer's clock, UTC). A value larger \
            than the history keeps (16 KiB) is shown by its size. With --json each line is one \
            JSON object: {"seq": …, "key": …, "value": …, "origin": "external", "time": "<ISO 8601 UTC>", \
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

    @Option(help: ArgumentHelp("Also watch every key whose name starts with these bytes (`feature.` is not `featureless`).", valueName: "prefix"))
    var prefix: String?

    @Option(help: ArgumentHelp("First print every change the history keeps after this sequence, then go on live.", valueName: "seq"))
    var since: Int64?

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Flag(help: "Print `ready` on standard error once changes are being watched, so a script knows when to start writing.")
    var ready = false

    func validate() throws {
        if keys.contains("") { throw ValidationError("a key to watch must not be empty") }
        if prefix == "" { throw ValidationError("--prefix must not be empty (watch every key by naming none)") }
        if let since, since < 0 { throw ValidationError("--since must be a history sequence, 0 or more (got \(since))") }
    }

    func run() async throws {
        let path = try storeOptions.path()
        // By bytes, as SQLite compares keys: watching NFC "café" is not watching its NFD twin.
        let filter = Set(keys.map(HashedKey.init))
        let prefix = self.prefix.map { Array($0.utf8) }
        let follower = try ReplacedFileFollower(path: path, configuration: StoreOptions.configuration,
                                                feed: since.map { .after($0) } ?? .newest) { key in
            if filter.isEmpty && prefix == nil { return true }
            if let prefix, key.utf8.starts(with: prefix) { return true }
            return filter.contains(HashedKey(key))
        }
        let trap = SignalTrap([SIGINT, SIGTERM], handler: { [stop = follower.stop] _ in stop() })

        if ready {
            Console.err("ready")
        } else if Console.standardErrorIsTerminal {
            let named = keys.map(ValueFormatting.quoted) + (self.prefix.map { ["every key starting with \(ValueFormatting.quoted($0))"] } ?? [])
            let what = named.isEmpty ? "every key" : named.joined(separator: ", ")
            Console.err("Watching \(what) in \(path). Press Ctrl-C to stop.")
        }
        let json = self.json
        try await follower.run { delivered in
            switch delivered {
            case .entry(let entry):
                try Console.out(WatchFormat.line(for: entry, json: json))
            case .change(let change, let isSecret):
                try Console.out(WatchFormat.line(for: change, receivedAt: Date(), json: json, isSecret: isSecret))
            }
        }
        withExtendedLifetime(trap) {}
    }

}
#endif
