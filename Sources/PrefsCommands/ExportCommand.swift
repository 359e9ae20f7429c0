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
            written as a stream; a directory is refused. A failed write exits 1. \
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
        var entries = try store?.allEntries() ?? []
        if let key = try store?.keysNotValidUTF8().first { throw PrefsError.keyNotInJSON(key) }
        var leftOut: [String] = []
        if !includeSecrets {
            // By bytes: a key canonically equivalent to a secret one (NFD and NFC "café") is
            // another row, exported like any other (a backup must restore it).
            let secrets = try store?.secretKeysByBytes() ?? []
            leftOut = entries.map(\.key).filter { secrets.contains(HashedKey($0)) }
            entries.removeAll { secrets.contains(HashedKey($0.key)) }
        }
        let json = ExportFormat.encodeObject(entries)
        if let file, file != "-" {
            try OutputFile.write(Array((json + "\n").utf8), to: file)
        } else {
            try Console.out(json)
        }
        if !leftOut.isEmpty {
            let names = leftOut.map(ValueFormatting.quoted).joined(separator: ", ")
            let what = leftOut.count == 1 ? "secret key" : "\(leftOut.count) secret keys"
            Console.err("prefs: note: left out \(what) \(names); --include-secrets exports \(leftOut.count == 1 ? "it" : "them")")
        }
    }
}
#endif
