import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `prefs export [FILE]`
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every key and value as one JSON object, for `import`, or write it to FILE.",
        discussion: """
            Every storage class survives the round trip: INTEGER as a number (42), REAL as a \
            number with a decimal point or exponent (2.0), TEXT as a string, or as the JSON \
            itself when it holds a JSON array or object, BLOB as {"$data": "<base64>"}. \
            With FILE the JSON is written to a temporary file next to it and renamed over it, \
            so FILE is never left half written; it is created readable by its owner only, \
            like the database.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("Where to write the JSON (default: standard output; - also means standard output).", valueName: "file"))
    var file: String?

    func run() throws {
        let entries = try storeOptions.openExisting()?.allEntries() ?? []
        let json = ExportFormat.encodeObject(entries)
        guard let file, file != "-" else {
            Console.out(json)
            return
        }
        try Self.writeAtomically(Array((json + "\n").utf8), to: file)
    }

    /// Writes `bytes` to a new temporary file in `path`'s directory, flushes it to disk and
    /// renames it over `path`: readers see the old file or the whole new one, never a part.
    /// - Throws: ``PrefsError`` naming `path` and what the system said.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(PrefsError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".prefs-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        func failure(_ what: String) -> PrefsError {
            PrefsError("\(path): cannot \(what): \(String(cString: strerror(errno)))")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("write") }
        var written = 0
        var succeeded = true
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count, let base = buffer.baseAddress {
                let result = write(descriptor, base + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    succeeded = false
                    return
                }
                written += result
            }
        }
        guard succeeded, fsync(descriptor) == 0 else {
            let error = failure("write")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = failure("replace")
            unlink(temporary)
            throw error
        }
    }
}
