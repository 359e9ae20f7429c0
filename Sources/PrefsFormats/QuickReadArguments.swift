/// The one command line `prefs` recognises without ArgumentParser: `read KEY`, with `--json`
/// and one of `--db PATH` / `--name APP`, in any order after the program name — the call a
/// script makes in a loop.
///
/// Why: ArgumentParser builds its view of a command by reflection, and every protocol check
/// that reflection makes scans every conformance record in the binary the first time. A static
/// `prefs` carries about 9,300 of them (Foundation, NIO, Hummingbird, postgres-nio for `serve`
/// and `sync`), so parsing `read timeout` cost 18.7 million instructions: 61% of the whole
/// process, three times the `sqlite3` shell's entire run (Benchmarks/startup.sh; the
/// Performance article has the profile).
///
/// It takes only argument lists whose meaning is already certain — every option spelled out
/// (`--db PATH`, never `--db=PATH`), each at most once, `--json` after `read`, no value or key
/// that starts with `-`, nothing empty, no `help` — and `prefs` fills in the same `ReadCommand`
/// ArgumentParser would have decoded, which then validates and runs as usual. Every other list,
/// including every mistake, goes to ArgumentParser and its messages. prefsTests'
/// `QuickReadTests` run each case both ways and compare output, errors and exit status.
package struct QuickReadArguments: Equatable, Sendable {
    /// `--db PATH`, when given.
    package var db: String?
    /// `--name APP`, when given.
    package var name: String?
    /// The key to read.
    package var key: String
    /// `--json`.
    package var json: Bool

    /// The `read` command `arguments` (without the program name) mean, or nil when
    /// ArgumentParser must decide.
    package init?(_ arguments: [String]) {
        var db: String?
        var name: String?
        var json = false
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--db", "--name":
                guard index + 1 < arguments.count else { return nil }
                let value = arguments[index + 1]
                guard !value.isEmpty, !value.hasPrefix("-") else { return nil }
                if argument == "--db" {
                    guard db == nil else { return nil }
                    db = value
                } else {
                    guard name == nil else { return nil }
                    name = value
                }
                index += 2
            case "--json":
                // After the command's name only, where ArgumentParser reads it too.
                guard !json, words.first == "read" else { return nil }
                json = true
                index += 1
            default:
                guard !argument.isEmpty, !argument.hasPrefix("-") else { return nil }
                words.append(argument)
                index += 1
            }
        }
        // `help` is a word ArgumentParser gives its own meaning to in places; leave it to it.
        guard words.count == 2, words[0] == "read", words[1] != "help", db == nil || name == nil else { return nil }
        self.db = db
        self.name = name
        self.key = words[1]
        self.json = json
    }
}
