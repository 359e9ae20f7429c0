import ArgumentParser
import SQLiteDefaults

/// `prefs export`
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every key and value as one JSON object, for `import`.",
        discussion: """
            Every storage class survives the round trip: INTEGER as a number (42), REAL as a \
            number with a decimal point or exponent (2.0), TEXT as a string, or as the JSON \
            itself when it holds a JSON array or object, BLOB as {"$data": "<base64>"}.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    func run() throws {
        let entries = try storeOptions.openExisting()?.allEntries() ?? []
        Console.out(ExportFormat.encodeObject(entries))
    }
}
