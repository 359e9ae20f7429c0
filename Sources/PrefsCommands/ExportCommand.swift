#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `prefs export [FILE]`
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every key and value as one JSON object, for `import`, or write it to FILE.",
        discussion: """
            Every storage class survives the round trip: INTEGER as a number (42), REAL as a \
            number with a decimal point or exponent (2.0), TEXT as a string, or as the JSON \
            itself when it holds a JSON array or object, BLOB as {"$data": "<base64>"}. \
            TEXT that is not valid UTF-8 is {"$textBytes": "<base64>"}, byte for byte. A key \
            that is not valid UTF-8 cannot be a JSON key: export refuses, naming its bytes \
            (`delete --all` removes it). With FILE the JSON is written to a temporary file \
            next to it and renamed over it, so FILE is never left half written and a failed \
            export keeps the old one; a new FILE is readable by its owner only, like the \
            database, an existing one keeps its permissions. A symbolic link is written \
            through to its target; a FIFO, character device or socket (/dev/stdout) is \
            written as a stream; a directory is refused. A failed write exits 1. The \
            keys are read from one snapshot and written as they are read, so a file of a \
            million keys is exported in constant memory. \
            A secret key (`declare --secret`) is left out, with a note on standard error naming \
            it, so the file never holds its value, and importing that file leaves the stored \
            secret as it is; --include-secrets writes it like any other key (an import of that \
            file restores it). Declarations are not exported.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("Where to write the JSON (default: standard output; - also means standard output).", valueName: "file"))
    var file: String?

    @Flag(help: "Include the values of secret keys (left out by default).")
    var includeSecrets = false

    func run() throws {
        let store = try storeOptions.openExisting()
        if let key = try store?.keysNotValidUTF8().first { throw PrefsError.keyNotInJSON(key) }
        // By bytes, as SQLite tells keys apart: "é" and "e" + U+0301 are two keys, and only
        // the one declared secret is left out.
        let secrets = includeSecrets ? [] : Set(try (store?.declarations() ?? []).filter(\.isSecret).map { Data($0.key.utf8) })
        var leftOut: [String] = []
        // Streamed from one snapshot, a row at a time: a million keys hold one buffer.
        let produce = { (sink: OutputSink) throws in
            var first = true
            try store?.forEachEntry { entry in
                guard entry.value != .null else { return }
                // Checked above; a key written since by another client is refused the same way.
                guard let key = entry.key else { throw PrefsError.keyNotInJSON(entry.keyBytes) }
                if secrets.contains(entry.keyBytes) {
                    leftOut.append(key)
                    return
                }
                try sink.write((first ? "{\n  " : ",\n  ") + ExportFormat.quote(key) + ": " + ExportFormat.encode(entry.value))
                first = false
            }
            try sink.write(first ? "{}\n" : "\n}\n")
        }
        if let file, file != "-" {
            try OutputFile.write(to: file, produce)
        } else {
            let sink = OutputSink.standardOutput()
            try produce(sink)
            try sink.flush()
        }
        if !leftOut.isEmpty {
            let names = leftOut.map(ValueFormatting.quoted).joined(separator: ", ")
            let what = leftOut.count == 1 ? "secret key" : "\(leftOut.count) secret keys"
            Console.err("prefs: note: left out \(what) \(names); --include-secrets exports \(leftOut.count == 1 ? "it" : "them")")
        }
    }
}
#endif
