#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `prefs`: read, write and watch SQLiteDefaults preferences from the shell.
///
/// In a library target, so that the `prefs` executable and SQLiteDefaultsVapor's
/// `DefaultsCommand` (prefs as a command of a Vapor app) run the same implementation, both
/// through ``PrefsTool``.
struct PrefsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefs",
        abstract: "Read, write and watch the preferences in a SQLiteDefaults database.",
        discussion: """
            Every command takes --db PATH, or --name APP for the app's standard database \
            ($XDG_CONFIG_HOME/APP/defaults.sqlite, ~/.config as the fallback). With neither, \
            the environment variable PREFS_DB names the file; without that either, commands use \
            --name prefs, and the ones that write (write, delete, rename, import) print \
            `prefs: using PATH` on standard error. Errors are one line on standard error \
            starting with `prefs: `, with a non-zero exit status; output that cannot be written \
            (a full disk, /dev/full) is such an error. Arguments are checked before any file is \
            opened. Shell completion: \
            `prefs --generate-completion-script bash|zsh|fish`. Try `prefs demo`.
            """,
        version: PrefsCommand.versionLine,
        subcommands: PrefsCommand.commands
    )

    /// Every command; `serve` and `token` with the Console trait, `sync` with the Fleet trait.
    static let commands: [any ParsableCommand.Type] = {
        var commands: [any ParsableCommand.Type] = [
            ReadCommand.self,
            ReadTypeCommand.self,
            WriteCommand.self,
            DeleteCommand.self,
            RenameCommand.self,
            ListCommand.self,
            WatchCommand.self,
            HistoryCommand.self,
            RevertCommand.self,
            ExportCommand.self,
            ImportCommand.self,
            DomainsCommand.self,
            DemoCommand.self,
            WriteLoopCommand.self,
            DeclareCommand.self,
            UndeclareCommand.self,
            DescribeCommand.self,
        ]
        #if Flags
        commands.append(FlagsCommand.self)
        #endif
        // `serve` and `sync` exist when the package is built with the Console and Fleet traits
        // (both are default traits); they follow `watch` in the help.
        var next = (commands.firstIndex { ObjectIdentifier($0) == ObjectIdentifier(WatchCommand.self) } ?? 0) + 1
        #if Console
        commands.insert(ServeCommand.self, at: next)
        commands.insert(TokenCommand.self, at: next + 1)
        next += 2
        #endif
        #if Fleet
        commands.insert(SyncCommand.self, at: next)
        commands.insert(RelayCommand.self, at: next + 1)
        #endif
        _ = next
        return commands
    }()

    @OptionGroup var storeOptions: StoreOptions

    /// What `prefs --version` prints; the one place the tool's version is written.
    static let version = "1.0.0"

    /// `prefs --version`: the tool's version and the SQLite it runs on (the system's library, or
    /// whichever `LD_LIBRARY_PATH` names), for bug reports: `prefs 1.0.0 (SQLite 3.46.1)`.
    static var versionLine: String { "prefs \(version) (SQLite \(SQLiteLibrary.version))" }

    /// Runs the command line and exits, reporting every failure as one `prefs: …` line.
    ///
    /// Replaces ArgumentParser's `main()`, whose usage errors span several lines and start
    /// with `Error:`; help and `--version` still print in full on standard output. Commands
    /// that finish at once (`read`, `write`, `list`, …) run on the main thread: a script that
    /// calls `prefs` twenty times should not pay twenty starts of the concurrency runtime's
    /// thread pool. Only `watch`, `sync` and `demo` run as async commands. `read KEY`, the call
    /// scripts make most, skips ArgumentParser when its meaning is certain (see `QuickRead`).
    static func main() {
        // Before anything reads `CommandLine.arguments`, which replaced invalid bytes with U+FFFD.
        if let refusal = ArgumentBytes.refusal(ArgumentBytes.processArguments()) { Foundation.exit(report(refusal)) }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let status = QuickRead.run(arguments) { Foundation.exit(status) }
        let command: any ParsableCommand
        do {
            command = try parse(arguments)
        } catch {
            Foundation.exit(report(error))
        }
        if command is any AsyncParsableCommand {
            // Parsed again inside the task: a parsed command is not Sendable, its arguments are.
            Task { Foundation.exit(await run(arguments: arguments)) }
            dispatchMain()
        }
        var synchronous = command
        do {
            try synchronous.run()
            Foundation.exit(0)
        } catch {
            Foundation.exit(report(error))
        }
    }

    /// The command `arguments` name, parsed.
    /// - Throws: `PrefsError` for an unknown command; ArgumentParser's errors (and its clean
    ///   exits for `--help` and `--version`) for the rest.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if let unknown = unknownCommand(in: arguments) {
            let names = visibleCommandNames.joined(separator: ", ")
            throw PrefsError("unknown command \(ValueFormatting.quoted(unknown)) (commands: \(names))", exitCode: ExitCode.validationFailure.rawValue)
        }
        return try parseAsRoot(arguments)
    }

    /// Parses and runs `arguments`; returns the exit status after printing any error.
    static func run(arguments: [String]) async -> Int32 {
        do {
            var command = try parse(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            return report(error)
        }
    }

    /// Prints the help of the command `arguments` name (prefs's own when they name none), as
    /// `prefs … --help` does; returns its exit status (0).
    static func help(arguments: [String]) -> Int32 {
        do {
            _ = try parse(arguments + ["--help"])
            return 0
        } catch {
            return report(error)
        }
    }

    /// The commands `--help` lists.
    static var visibleCommandNames: [String] {
        configuration.subcommands.filter { $0.configuration.shouldDisplay }.compactMap { $0.configuration.commandName }
    }

    /// The first word that should name a command but names none (ArgumentParser alone would
    /// call it an "unexpected argument").
    static func unknownCommand(in arguments: [String]) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--db" || argument == "--name" {
                index += 2
                continue
            }
            if argument.hasPrefix("-") { return nil }  // options are the parser's to judge
            let known = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
            return known.contains(argument) ? nil : argument
        }
        return nil
    }

    /// Prints `error` (one line on standard error, or help on standard output) and returns the exit status.
    static func report(_ error: any Error) -> Int32 {
        switch error {
        case let error as PrefsError:
            Console.err("prefs: " + ValueFormatting.oneLine(error.message))
            return error.exitCode
        case let error as FormatError:
            Console.err("prefs: " + ValueFormatting.oneLine(error.message))
            return 1
        case let error as DefaultsError:
            Console.err("prefs: " + ValueFormatting.oneLine(error.description))
            return 1
        case let error as ExitCode:
            return error.rawValue
        default:
            let status = exitCode(for: error)
            if status == .success {  // --help, --version
                let text = fullMessage(for: error)
                if !text.isEmpty { _ = try? Console.out(text) }  // help and --version: nothing to report a failure to
                return 0
            }
            let message = ValueFormatting.oneLine(Self.message(for: error).firstParagraph)
            Console.err("prefs: " + (message.isEmpty ? "invalid command line" : message) + " (see 'prefs --help')")
            return status.rawValue == 0 ? 1 : status.rawValue
        }
    }
}

extension String {
    /// The text up to the first blank line (ArgumentParser appends usage after one).
    var firstParagraph: String {
        let lines = split(separator: "\n", omittingEmptySubsequences: false)
        let head = lines.prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return head.joined(separator: "\n")
    }
}
#endif
