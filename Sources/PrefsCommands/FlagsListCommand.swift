#if Prefs && Flags
import ArgumentParser
import SQLiteDefaults
import SQLiteDefaultsFlags

/// `prefs flags list`
struct FlagsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the flags: key, state and default variant, one per line.",
        usage: "prefs flags list [--db <path>] [--name <app>] [--json]",
        discussion: """
            A flag without a default variant shows -; a key whose JSON is not a valid flag \
            (a raw SQL write, say) shows INVALID and why. --json prints one object per flag \
            key: state, defaultVariant, variants (their names) and targeting (whether it has \
            a rule).
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        guard let store = try storeOptions.openExisting() else {
            if json { print("{}") }
            return
        }
        let flags = DefaultsFlags(store: store)
        var listing: [String: FlagValue] = [:]
        for key in try flags.flagKeys() {
            switch flags.flag(key) {
            case nil: continue  // removed since the listing
            case .success(let flag)?:
                if json {
                    listing[key] = .object([
                        "state": .string(flag.state.rawValue),
                        "defaultVariant": flag.defaultVariant.map(FlagValue.string) ?? .null,
                        "variants": .array(flag.variants.keys.sorted().map(FlagValue.string)),
                        "targeting": .bool(flag.targeting != nil),
                    ])
                } else {
                    print("\(key)\t\(flag.state.rawValue)\t\(flag.defaultVariant ?? "-")")
                }
            case .failure(let error)?:
                if json {
                    listing[key] = .object(["state": "INVALID", "error": .string(error.description)])
                } else {
                    print("\(key)\tINVALID\t\(error)")
                }
            }
        }
        if json { print(FlagValue.object(listing).jsonText) }
    }
}
#endif
