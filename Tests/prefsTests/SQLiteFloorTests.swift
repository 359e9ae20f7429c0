#if Prefs
import ChildProcesses
import Foundation
import Testing
import TestScheduling

/// `prefs` on a SQLite older than the floor. No older library is built here (Debian's oldest
/// source package is 3.34.1, the floor itself), so the test gives `prefs` an older version
/// number: a small shared object, preloaded with LD_PRELOAD, answers `sqlite3_libversion()` and
/// `sqlite3_libversion_number()` as SQLite 3.33.0 would, and leaves every other call to the real
/// library. That is exactly what the floor check reads.
@Suite("prefs on a SQLite older than the floor", .offThePool)
struct SQLiteFloorTests {
    @Test("is refused at open with one line naming both versions, and nothing is created",
          .enabled(if: ChildProcess.findOnPath("cc") != nil, "needs a C compiler (cc) to build the version shim"))
    func olderSQLiteIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("oldsqlite.c")
        try """
            const char *sqlite3_libversion(void) { return "3.33.0"; }
            int sqlite3_libversion_number(void) { return 3033000; }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let shim = directory.path("liboldsqlite.so")
        let compiler = try #require(ChildProcess.findOnPath("cc"))
        let built = try ChildProcess(compiler, ["-shared", "-fPIC", "-o", shim, source])
        let outcome = try #require(await built.wait(timeout: .seconds(60)))
        try #require(outcome.status == 0, "cc failed: \(outcome.standardError)")

        let database = directory.path("data/defaults.sqlite")
        let environment = ["LD_PRELOAD": shim]
        #expect(try await Prefs.succeed(["--version"], environment: environment).contains("(SQLite 3.33.0)"))
        let result = try await Prefs.run(["--db", database, "write", "greeting", "hello"], environment: environment)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("prefs: ") && lines[0].contains("SQLite 3.33.0")
                && lines[0].contains("3.34.1"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
        #expect(!FileManager.default.fileExists(atPath: directory.path("data")), "the parent folder was created")
    }
}
#endif
