#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs history [KEY…] [--limit N] [--json]`
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print who changed the keys, when, and to what, newest first.",
        discussion: """
            The file keeps at least its newest 10,000 changes (see the library's \
            setHistoryRetention), by any writer: processes using the library (with their process \
            id, program, user and host), SQL clients such as the sqlite3 shell ("sql"), and the \
            fleet ("fleet", with the machine the row came from). One line per change: \
            `SEQ TIME KEY = VALUE (CLASS) by WRITER`, or `SEQ TIME KEY removed by WRITER`; a \
            declared key is followed by its type in brackets (`timeout [int] = 45 (integer)`). \
            With --json, one JSON array of {"seq", "key", "value", "time", "writer": {"kind", \
            "pid", "program", "user", "host"}}, the value as `export` writes it (null when \
            removed), writer fields absent when unknown, and "type" (the declared type) for a \
            declared key (a type prefs does not know shows as [unknown type "T"] in the text, \
            and has no "type" in JSON); a declared bool's value reads false or true in the text. \
            A TEXT or BLOB over 16,384 bytes is kept by its \
            size only: `(N bytes, not kept)`, or "value": null with "omitted": N. \
            Who a change was made for and why (`write --reason`, $PREFS_ACTOR) end its line as \
            ` for alice: "why"` (the reason on one line, escaped, cut after 200 characters) and \
            are "actor" and "reason" in JSON, each absent when unknown. A change of a secret key \
            (`declare --secret`) never shows its value: `= (secret, digest 1a2b3c4d5e6f)` (the \
            first 12 hex digits of a digest keyed by the file, the key and the value: equal \
            digests of one key, equal values; two keys never share one), in JSON \
            "value": null, "secret": true and "digest" (absent when a SQL client wrote it). \
            Entries written while a key was secret stay masked after `undeclare`.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The keys to show (default: every key).")
    var keys: [String] = []

    @Option(help: "Show at most this many changes.")
    var limit = 100

    @Flag(help: "Print one JSON array.")
    var json = false

    func validate() throws {
        if keys.contains("") { throw ValidationError("a key must not be empty") }
        if limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        guard let store = try storeOptions.openExisting() else {
            if json { try Console.out("[]") }  // no file yet: no history
            return
        }
        let entries = try store.history(keys: keys.isEmpty ? nil : keys, limit: limit)
        let declaredTypes = try HistoryFormat.declaredTypes(of: entries, in: store)
        if json {
            try Console.out(HistoryFormat.jsonArray(entries, declaredTypes: declaredTypes))
        } else if !entries.isEmpty {
            let unknownTypes = try store.declarationsOfUnknownTypeByBytes()
            try Console.out(entries.map {
                HistoryFormat.line($0, declaredType: declaredTypes[HashedKey($0.key)], unknownType: unknownTypes[HashedKey($0.key)])
            }.joined(separator: "\n"))
        }
    }
}
#endif
