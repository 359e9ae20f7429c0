#if Prefs
import PrefsFormats

/// `prefs read KEY` without ArgumentParser, when its meaning is certain (see
/// `QuickReadArguments` for which lists, and why: parsing cost 61% of a static `prefs read`).
enum QuickRead {
    /// The `ReadCommand` ArgumentParser would have decoded from `arguments`, or nil when it must decide.
    static func command(_ arguments: [String]) -> ReadCommand? {
        guard let parsed = QuickReadArguments(arguments) else { return nil }
        var options = StoreOptions()
        options.db = parsed.db
        options.name = parsed.name
        var read = ReadCommand()
        read.storeOptions = options
        read.key = parsed.key
        read.json = parsed.json
        return read
    }
}
#endif
