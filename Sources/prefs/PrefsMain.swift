#if Prefs
import PrefsCommands

/// The `prefs` executable. Its commands live in the PrefsCommands library, which SQLiteDefaultsVapor's
/// `DefaultsCommand` runs too; this is only the entry point (its `read` fast path included).
@main
enum PrefsMain {
    static func main() {
        PrefsTool.main()
    }
}
#else
import Foundation

/// Built without the Prefs trait: the target must still link, so it is a program that says so.
@main
enum PrefsMain {
    static func main() {
        print("prefs: this build of SQLiteDefaults has no Prefs trait (swift build --traits Prefs)")
        exit(1)
    }
}
#endif
