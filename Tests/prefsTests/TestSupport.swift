#if Prefs
import ChildProcesses
import Foundation
import SQLiteDefaults
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the built `prefs` binary the way a user does, and checks what it printed.
enum Prefs {
    /// The `prefs` executable next to this test bundle (`.build/debug/prefs`), or
    /// `$PREFS_EXECUTABLE` when set.
    static let executable: String = {
        if let path = ProcessInfo.processInfo.environment["PREFS_EXECUTABLE"], !path.isEmpty { return path }
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("prefs").path
    }()

    /// A finished run of `prefs`.
    struct Result: CustomStringConvertible {
        let status: Int32
        let stdout: String
        let stderr: String

        /// The standard error lines, without the final empty one.
        var stderrLines: [Substring] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }

        var description: String { "status \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
    }

    /// Runs `prefs arguments…` to completion (killing it after `timeout`).
    static func run(
        _ arguments: [String],
        input: String? = nil,
        environment: [String: String] = [:],
        standardOutput: FileHandle? = nil,
        timeout: Duration = .seconds(60),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Result {
        try #require(FileManager.default.isExecutableFile(atPath: executable),
                     "the prefs binary is missing at \(executable); build it with `swift build`", sourceLocation: sourceLocation)
        ignoreSIGPIPE
        let child = try ChildProcess(executable, arguments, environment: environment, input: input.map { Array($0.utf8) },
                                     standardOutput: standardOutput)
        let outcome = try #require(await child.wait(timeout: timeout), "prefs \(arguments) did not finish within \(timeout)",
                                   sourceLocation: sourceLocation)
        #expect(!outcome.killedBySignal, "prefs \(arguments) died of signal \(outcome.status)", sourceLocation: sourceLocation)
        return Result(status: outcome.status, stdout: outcome.standardOutput, stderr: outcome.standardError)
    }

    /// Runs `prefs`, expects success with nothing on standard error, returns standard output.
    @discardableResult
    static func succeed(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await run(arguments, input: input, environment: environment, sourceLocation: sourceLocation)
        #expect(result.status == 0, "prefs \(arguments) failed: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr == "", "prefs \(arguments) printed on stderr: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// Runs `prefs`, expects the error contract: non-zero status, exactly one line on standard
    /// error starting with `prefs: `, no stack trace, nothing on standard output. Returns the line.
    @discardableResult
    static func fail(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:], status expectedStatus: Int32? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await run(arguments, input: input, environment: environment, sourceLocation: sourceLocation)
        #expect(result.status != 0, "prefs \(arguments) should have failed: \(result)", sourceLocation: sourceLocation)
        if let expectedStatus {
            #expect(result.status == expectedStatus, "\(result)", sourceLocation: sourceLocation)
        }
        #expect(result.stdout == "", "prefs \(arguments) printed on stdout: \(result.stdout)", sourceLocation: sourceLocation)
        let lines = result.stderrLines
        #expect(lines.count == 1, "expected one line on stderr, got: \(result.stderr)", sourceLocation: sourceLocation)
        let line = String(lines.first ?? "")
        #expect(line.hasPrefix("prefs: "), "stderr does not start with 'prefs: ': \(result.stderr)", sourceLocation: sourceLocation)
        for marker in ["Fatal error", "Error:", "Usage:", "USAGE", "Stack dump", "0x0"] {
            #expect(!result.stderr.contains(marker), "stderr contains \(marker): \(result.stderr)", sourceLocation: sourceLocation)
        }
        return line
    }

    /// Writing to a child that has exited must fail with EPIPE, not kill the test runner.
    private static let ignoreSIGPIPE: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()
}

/// A directory of its own for one test, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("prefsTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// A character device named `name` in this directory that behaves as `/dev/<device>`
    /// (`null` or `full`), for tests of what `prefs` writes to devices.
    ///
    /// Never hand a system device's own path to a `prefs` under test: run as root, a `prefs`
    /// that replaces what it writes to would replace `/dev/null` for the whole machine (it
    /// did, once). As root this makes a device node of its own with mknod; otherwise a link
    /// to the system's device, which an unprivileged `prefs` cannot replace.
    func characterDevice(_ name: String, like device: String) throws -> String {
        let minor: dev_t = device == "full" ? 7 : 3  // the memory devices: major 1
        let node = path(name)
        if mknod(node, S_IFCHR | 0o666, (1 << 8) | minor) == 0 {
            let descriptor = open(node, O_WRONLY)
            if descriptor >= 0 { close(descriptor); return node }
            unlink(node)  // a file system mounted nodev: fall back to the link
        }
        try FileManager.default.createSymbolicLink(atPath: node, withDestinationPath: "/dev/" + device)
        return node
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The `sqlite3` shell. Tests that need it fail (they do not pass silently) when it is missing.
enum SQLite3 {
    static func path(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(ChildProcess.findOnPath("sqlite3"), "the sqlite3 shell must be installed for this test (apt-get install sqlite3)",
                     sourceLocation: sourceLocation)
    }

    /// Runs SQL against `database` with the shell; returns its output.
    @discardableResult
    static func run(_ database: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let shell = try path(sourceLocation: sourceLocation)
        let child = try ChildProcess(shell, ["-bail", "-cmd", ".timeout 5000", database, sql])
        let outcome = try #require(await child.wait(timeout: .seconds(30)), sourceLocation: sourceLocation)
        #expect(outcome.succeeded, "sqlite3 failed: \(outcome.standardError)", sourceLocation: sourceLocation)
        return outcome.standardOutput
    }
}

/// Lines a long-running child printed, collected as they arrive, that a test can wait for.
final class LineCollector: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }

    /// The first line that matches, waiting up to `timeout` for it (no fixed sleeps: it
    /// returns as soon as the line is there).
    func wait(timeout: Duration = .seconds(10), for matches: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + timeout
        repeat {
            if let line = lines.withLock({ $0.first(where: matches) }) { return line }
            try? await Task.sleep(for: .milliseconds(5))
        } while ContinuousClock.now < deadline
        return lines.withLock { $0.first(where: matches) }
    }
}

/// A `prefs watch` process with its output lines.
struct Watcher {
    let child: ChildProcess
    let output: LineCollector
    let errors: LineCollector

    /// Starts `prefs watch --ready arguments…` and waits until it reports `ready` on stderr.
    static func start(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Watcher {
        let output = LineCollector()
        let errors = LineCollector()
        let child = try ChildProcess(
            Prefs.executable, arguments + ["--ready"],
            onLine: { output.append($0) }, onErrorLine: { errors.append($0) }
        )
        let ready = await errors.wait { $0 == "ready" }
        try #require(ready != nil, "prefs watch did not report ready within 10 s; stderr: \(errors.all)", sourceLocation: sourceLocation)
        return Watcher(child: child, output: output, errors: errors)
    }

    /// Sends `signal` and returns the exit status once the watcher has stopped.
    func stop(with signal: Int32 = SIGINT, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChildProcess.Outcome {
        child.send(signal)
        return try #require(await child.wait(timeout: .seconds(10)), "prefs watch did not stop within 10 s of signal \(signal)",
                            sourceLocation: sourceLocation)
    }
}

/// Every row of a database as the library reads it: key → exact SQLite value.
func storedRows(_ path: String) throws -> [String: SQLiteValue] {
    let store = try DefaultsStore(path: path)
    var rows: [String: SQLiteValue] = [:]
    for key in try store.keys() {
        rows[key] = try store.value(for: DefaultsKey<SQLiteValue?>(key))
    }
    return rows
}

/// Parses one JSON object line (as `watch --json` prints) with Foundation.
func jsonObject(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
    return try #require(object as? [String: Any], "not a JSON object: \(line)", sourceLocation: sourceLocation)
}

extension Trait where Self == ConditionTrait {
    /// Skips, saying what to install, where the `sqlite3` shell is missing.
    static var requiresSQLiteShell: Self {
        .enabled(if: ChildProcess.findOnPath("sqlite3") != nil, "needs the sqlite3 shell: apt-get install sqlite3")
    }
}
#endif
