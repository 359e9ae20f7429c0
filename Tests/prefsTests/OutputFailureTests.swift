#if Prefs
import ChildProcesses
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
import TestScheduling
#endif

/// Output that does not arrive must not end in success: every command that prints checks
/// each write and exits non-zero with one line on standard error when it fails.
@Suite("Failed output writes", .offThePool)
struct OutputFailureTests {
    /// A database with a few keys of every class.
    private static func database(in directory: TemporaryDirectory) async throws -> String {
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "name", "Ada"])
        try await Prefs.succeed(["--db", database, "write", "count", "3", "--type", "int"])
        return database
    }

    /// Runs `prefs arguments` with standard output on a full device; returns the result.
    private static func runToFullDevice(
        _ arguments: [String], in directory: TemporaryDirectory, input: String? = nil, environment: [String: String] = [:]
    ) async throws -> Prefs.Result {
        let device = try directory.characterDevice("full-\(UUID().uuidString)", like: "full")
        let full = try #require(FileHandle(forWritingAtPath: device), "cannot open a full device for this test")
        defer { try? full.close() }
        return try await Prefs.run(arguments, input: input, environment: environment, standardOutput: full)
    }

    private static func expectOneLineFailure(_ result: Prefs.Result, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0, "prefs \(arguments) > /dev/full should fail: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderrLines.count == 1, "expected one line on stderr: \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("prefs: ") && result.stderr.contains("standard output"), "\(result)", sourceLocation: sourceLocation)
    }

    @Test("every printing command exits non-zero with one line when standard output is /dev/full")
    func everyCommandReportsAFullStandardOutput() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let environment = ["XDG_CONFIG_HOME": directory.path("config")]
        try await Prefs.succeed(["--name", "app", "write", "k", "v"], environment: environment)
        let commands: [[String]] = [
            ["--db", database, "export"],
            ["--db", database, "export", "-"],
            ["--db", database, "list"],
            ["--db", database, "list", "--json"],
            ["--db", database, "read", "name"],
            ["--db", database, "read", "name", "--json"],
            ["--db", database, "read-type", "count"],
            ["--db", database, "import", "-"],
            ["domains"],
            ["demo"],
        ]
        for arguments in commands {
            let input = arguments.contains("import") ? #"{"x": 1}"# : nil
            let result = try await Self.runToFullDevice(arguments, in: directory, input: input, environment: environment)
            if arguments == ["demo"] {
                // The demo prints from its first step on: it must stop at the first failed line.
                #expect(result.status != 0, "\(result)")
                #expect(result.stderr.contains("prefs: cannot write to standard output"), "\(result)")
            } else {
                Self.expectOneLineFailure(result, arguments)
            }
        }
    }

    @Test("watch stops with status 1 when a change cannot be printed, instead of running on")
    func watchStopsOnAFailedWrite() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let full = try #require(FileHandle(forWritingAtPath: try directory.characterDevice("full", like: "full")))
        defer { try? full.close() }
        let errors = LineCollector()
        let child = try ChildProcess(Prefs.executable, ["--db", database, "watch", "--ready"], standardOutput: full,
                                     onErrorLine: { errors.append($0) })
        #expect(await errors.wait { $0 == "ready" } != nil, "watch did not start: \(errors.all)")
        try await Prefs.succeed(["--db", database, "write", "name", "Bob"])
        let outcome = try #require(await child.wait(timeout: .seconds(20)), "watch kept running after a failed write")
        #expect(!outcome.killedBySignal && outcome.status != 0, "status \(outcome.status)")
        #expect(errors.all.filter { $0.hasPrefix("prefs: ") }.count == 1, "\(errors.all)")
    }

    @Test("export to a full device fails with one line; a failed file export leaves the old file as it was")
    func exportToAFullDevice() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        // A full device of the test's own (see `characterDevice`): never /dev/full itself.
        let full = try directory.characterDevice("full", like: "full")
        let line = try await Prefs.fail(["--db", database, "export", full])
        #expect(line.contains(full) && line.contains("No space left"), "\(line)")

        // A file export that fails (here: its directory is read-only, so no temporary file
        // can be made) keeps the old file, and no fragment is left.
        guard getuid() != 0 else { return }  // root writes anywhere
        let locked = directory.path("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        let old = locked + "/backup.json"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: old))
        chmod(locked, 0o555)
        defer { chmod(locked, 0o755) }
        try await Prefs.fail(["--db", database, "export", old])
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked) == ["backup.json"])
    }
}
#endif
