#if Vapor
import Foundation
import PrefsCommands
import SQLiteDefaults
import Vapor

/// `prefs` as a command of the app: `swift run App prefs list|read|write|watch|history|…`
/// runs prefs's own implementation — the same commands, options, output and exit statuses —
/// against the application's store.
///
/// ```swift
/// app.asyncCommands.use(DefaultsCommand(), as: "prefs")
/// ```
///
/// ```sh
/// swift run App prefs write feature.beta true --type bool --reason launch
/// swift run App prefs history feature.beta
/// ```
///
/// The commands work on the file of `app.defaults.store` (configured by `app.defaults.use(…)`
/// in the app's `configure`); `--db PATH` or `--name APP` on the command line still chooses
/// another file, as it does for `prefs`. It is an `AnyAsyncCommand`, so every argument reaches
/// prefs as typed; ConsoleKit itself takes `--help`/`-h` (answered with prefs's help), and
/// `--yes`/`-y`, `--no`/`-n` and `--autocomplete` before the command sees them.
///
/// A failure prints as `prefs` prints it (one `prefs: …` line on standard error) and ends the
/// program with prefs's non-zero exit status, as `prefs` itself would, rather than as a thrown
/// error that Vapor would report a second time.
public struct DefaultsCommand: AnyAsyncCommand {
    /// What `swift run App --help` shows beside the command.
    public var help: String { "Read, write and watch the app's preferences (the prefs tool, on the app's store)." }

    /// Whether a failing command ends the process with prefs's status (the command line's
    /// behaviour) or throws (tests run commands in process).
    let exitsOnFailure: Bool

    /// The command, for `app.asyncCommands.use(DefaultsCommand(), as: "prefs")`.
    public init() {
        self.exitsOnFailure = true
    }

    /// A command that throws ``DefaultsVaporError`` `.commandFailed` where ``init()``'s would
    /// end the process: for running it in a test.
    package init(exitsOnFailure: Bool) {
        self.exitsOnFailure = exitsOnFailure
    }

    /// Runs prefs with the arguments after the command's name, on the app's store.
    ///
    /// - Throws: ``DefaultsVaporError`` `.notInUse` when the app configured no store and the
    ///   arguments name none; `.commandFailed` for a failing command made with
    ///   `exitsOnFailure: false` (a ``init()`` command ends the process instead).
    public func run(using context: inout CommandContext) async throws {
        let arguments = try Self.arguments(context.input.arguments, application: context.application)
        let status = await PrefsTool.run(arguments: arguments)
        guard status != 0 else { return }
        if exitsOnFailure {
            FileHandle.standardOutput.synchronizeFile()
            Foundation.exit(status)
        }
        throw DefaultsVaporError(.commandFailed, "prefs \(context.input.arguments.joined(separator: " ")) exited with status \(status)")
    }

    /// prefs's own help (`swift run App prefs --help`, `swift run App prefs write --help`).
    public func outputHelp(using context: inout CommandContext) {
        let arguments = (try? Self.arguments(context.input.arguments, application: context.application)) ?? context.input.arguments
        // prefs prints help on standard output and returns 0.
        _ = PrefsTool.help(arguments: arguments)
    }

    /// `arguments` with `--db PATH` of the app's store in front, unless they choose a file
    /// themselves.
    static func arguments(_ arguments: [String], application: Application) throws -> [String] {
        let named = arguments.contains { argument in
            ["--db", "--name"].contains(argument) || argument.hasPrefix("--db=") || argument.hasPrefix("--name=")
        }
        if named { return arguments }
        let store = try application.defaults.requireStore()
        guard let path = store.path else {
            throw DefaultsVaporError(.notInUse, "the app's store is in memory: prefs needs a file (give --db PATH)")
        }
        return ["--db", path] + arguments
    }
}
#endif
