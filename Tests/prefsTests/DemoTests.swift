#if Prefs
import Foundation
import Testing
import TestScheduling

@Suite("prefs demo", .offThePool, .requiresSQLiteShell)
struct DemoTests {
    // The ten-second limit is the demo's own: it fails itself past it. The test does not time
    // the process from outside, where spawning under a loaded CI machine adds noise.
    @Test("demo runs every step, including the sqlite3 shell, and exits 0")
    func demoExitsZero() async throws {
        _ = try SQLite3.path()  // the shell step must run, not be skipped
        let result = try await Prefs.run(["demo"], timeout: .seconds(60))

        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "", "\(result.stderr)")
        #expect(result.stdout.contains("All 5 steps worked"), "\(result.stdout)")
        #expect(!result.stdout.contains("skipped"), "\(result.stdout)")
        #expect(!result.stdout.contains("FAILED"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "✓").count - 1 == 5, "\(result.stdout)")

        // The temporary database is gone afterwards.
        let path = try #require(result.stdout.firstMatch(of: /temporary database: (\S+)/)?.output.1)
        #expect(!FileManager.default.fileExists(atPath: String(path)))
    }
}
#endif
