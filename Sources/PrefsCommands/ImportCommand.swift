#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `prefs import FILE`
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Set the keys of a JSON file made by `export`, all or nothing.",
        discussion: """
            The file holds one JSON object mapping keys to values, in the format `export` \
            prints. It is checked completely first, then applied in one transaction: either \
            every key is set or, on any error, none is. Keys the file does not name are left \
            as they are; a key whose value is null is removed. Hand-written files may also use \
            true/false (stored as INTEGER 1/0). Use - to read standard input. The history \
            records every change with its actor ($PREFS_ACTOR, else your login name) and \
            --reason, if given. An export made without --include-secrets has no entry for a \
            secret key, so importing it leaves the stored secret as it is; one made with \
            --include-secrets restores it (its history entry keeps only a digest).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The JSON file to import, or - for standard input.", valueName: "file"))
    var file: String

    @OptionGroup var attribution: AttributionOptions

    func run() throws {
        let attributed = try attribution.resolved()
        let bytes = try readInput()
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            throw PrefsError("\(displayName): \(error.description)")
        }
        let entries: [(key: String, value: SQLiteValue?)]
        do {
            entries = try ExportFormat.decodeObject(document)
        } catch {
            throw PrefsError("\(displayName): \(error.message)")
        }

        let store = try storeOptions.openForWriting()
        try store.transaction(attributed) { transaction in
            for entry in entries {
                if let value = entry.value {
                    try transaction.set(value, for: rowKey(entry.key))
                } else {
                    try transaction.remove(rowKey(entry.key))
                }
            }
        }
        try Console.out("imported \(entries.count) \(entries.count == 1 ? "key" : "keys")")
    }

    private var displayName: String { file == "-" ? "standard input" : file }

    private func readInput() throws(PrefsError) -> [UInt8] {
        if file == "-" {
            return Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw PrefsError("\(file): no such file")
        }
        guard !isDirectory.boolValue else { throw PrefsError("\(file): is a directory, not a JSON file") }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw PrefsError("\(file): cannot be read (permission denied?)")
        }
        return Array(data)
    }
}
#endif
