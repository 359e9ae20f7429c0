import Foundation
import Testing

@Suite("prefs demo")
struct DemoTests {
    @Test("demo runs every step, including the sqlite3 shell, and exits 0 within ten seconds")
    func demoExitsZero() async throws {
        _ = try SQLite3.path()  // the shell step must run, not be skipped
        let start = ContinuousClock.now
        let result = try await Prefs.run(["demo"], timeout: .seconds(60))
        let elapsed = ContinuousClock.now - start

        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "", "\(result.stderr)")
        #expect(result.stdout.contains("All 5 steps worked"), "\(result.stdout)")
        #expect(!result.stdout.contains("skipped"), "\(result.stdout)")
        #expect(!result.stdout.contains("FAILED"), "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "✓").count - 1 == 5, "\(result.stdout)")
        #expect(elapsed < .seconds(10), "demo took \(elapsed)")

        // The temporary database is gone afterwards.
        let path = try #require(result.stdout.firstMatch(of: /temporary database: (\S+)/)?.output.1)
        #expect(!FileManager.default.fileExists(atPath: String(path)))
    }
}
