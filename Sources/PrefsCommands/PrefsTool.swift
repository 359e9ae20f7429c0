#if Prefs
/// What the rest of the package sees of prefs: the `prefs` executable's entry point, and the
/// same commands run with given arguments (SQLiteDefaultsVapor's `DefaultsCommand`). The
/// commands themselves stay internal to this target.
package enum PrefsTool {
    /// Runs the process's command line and exits (the `prefs` executable; `read KEY` takes the
    /// fast path that skips ArgumentParser).
    package static func main() {
        PrefsCommand.main()
    }

    /// Parses and runs `arguments` (without the program's name), printing output and errors as
    /// `prefs` does; returns the exit status.
    package static func run(arguments: [String]) async -> Int32 {
        await PrefsCommand.run(arguments: arguments)
    }

    /// Prints the help of the command `arguments` name; returns the exit status.
    package static func help(arguments: [String]) -> Int32 {
        PrefsCommand.help(arguments: arguments)
    }
}
#endif
