#if Prefs
import PrefsFormats

/// `prefs read KEY` without ArgumentParser, when its meaning is certain (see
/// `QuickReadArguments` for which lists, and why: parsing cost 61% of a static `prefs read`).
/// Nothing of ArgumentParser is touched on this path, not even a command's property wrappers:
/// the first use of each generic type costs the runtime a scan of every conformance record.
enum QuickRead {
    /// Runs `prefs read` for `arguments` and returns its exit status, or nil (having done
    /// nothing) when ArgumentParser must decide.
    static func run(_ arguments: [String]) -> Int32? {
        guard let parsed = QuickReadArguments(arguments) else { return nil }
        do {
            try ReadCommand.read(parsed.key, from: StoreLocation(db: parsed.db, name: parsed.name), json: parsed.json)
            return 0
        } catch {
            return PrefsCommand.report(error)
        }
    }
}
#endif
