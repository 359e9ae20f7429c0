#if Prefs
import ChildProcesses
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Arguments whose bytes are not UTF-8 are refused (one line, exit 64, nothing done), never
/// silently turned into U+FFFD (issue 46: repro 45). A shell passes the raw bytes: `Process`
/// takes `String`s, which cannot hold them.
@Suite("prefs refuses arguments that are not UTF-8", .offThePool, .requiresSQLiteShell)
struct ArgumentBytesTests {
    /// Runs `prefs --db DATABASE` followed by `arguments`, each given as printf(1) escapes
    /// (`k\377`), through /bin/sh so the raw bytes reach prefs.
    private static func run(_ database: String, _ arguments: [String]) async throws -> Prefs.Result {
        let script = "exec \"$0\" --db \"$1\" " + arguments.map { "\"$(printf '\($0)')\"" }.joined(separator: " ")
        let child = try ChildProcess("/bin/sh", ["-c", script, Prefs.executable, database])
        let outcome = try #require(await child.wait(timeout: .seconds(60)))
        return Prefs.Result(status: outcome.status, stdout: outcome.standardOutput, stderr: outcome.standardError)
    }

    @Test("a value, a key, and a key to delete with invalid bytes: exit 64, one line, the file untouched",
          arguments: [["write", "city", "caf\\351"], ["write", "k\\377", "one"], ["delete", "k\\377"], ["read", "k\\376"]])
    func refused(arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "seed", "1"])
        try await SQLite3.run(database, "INSERT INTO defaults(key, value) VALUES ('k' || char(65533), 'valid key k U+FFFD')")
        let before = try await SQLite3.run(database, "SELECT hex(key) || '=' || hex(value) FROM defaults ORDER BY key")
        let result = try await Self.run(database, arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        let lines = result.stderrLines
        #expect(lines.count == 1 && lines.first?.hasPrefix("prefs: ") == true && lines.first?.contains("not valid UTF-8") == true, "\(result)")
        #expect(lines.first?.contains("\\x{") == true, "the line shows the bytes escaped: \(result)")
        let after = try await SQLite3.run(database, "SELECT hex(key) || '=' || hex(value) FROM defaults ORDER BY key")
        #expect(after == before)
    }

    @Test("the escaped name prefs prints for such a key still names it (valid text, accepted)")
    func escapedFormStillWorks() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "seed", "1"])
        try await SQLite3.run(database, "INSERT INTO defaults(key, value) VALUES (CAST(x'6BFF' AS TEXT), 'raw')")
        try await Prefs.succeed(["--db", database, "delete", "k\\x{FF}"])
        #expect(try await SQLite3.run(database, "SELECT count(*) FROM defaults WHERE key = CAST(x'6BFF' AS TEXT)") == "0\n")
    }
}
#endif
