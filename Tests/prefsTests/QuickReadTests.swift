#if Prefs
import Foundation
import PrefsFormats
import SQLiteDefaults
import Testing
import TestScheduling

/// `prefs read KEY` skips ArgumentParser when its meaning is certain (`QuickReadArguments`, whose
/// own tests list what it takes): each case prints, fails and exits exactly as the same command
/// decided by ArgumentParser does.
@Suite("prefs read without ArgumentParser", .offThePool)
struct QuickReadTests {
    /// Each case as the quick path takes it, and the same command as only ArgumentParser takes it
    /// (`--db=PATH`, and `--` before the key).
    @Test("every outcome is the one ArgumentParser's path gives")
    func sameOutcomeBothWays() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "write", "timeout", "--type", "int", "30"])
        try await Prefs.succeed(["--db", db, "write", "title", "Hello, world"])
        try await Prefs.succeed(["--db", db, "declare", "theme", "--type", "string", "--default", "light"])
        try await SQLite3.run(db, "INSERT INTO defaults (key, value) VALUES (CAST(X'FF6B' AS TEXT), 7)")
        let notADatabase = directory.path("text.sqlite")
        try Data("not a database at all, just some text that is long enough".utf8).write(to: URL(fileURLWithPath: notADatabase))
        let folder = directory.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

        let cases: [(file: String, key: String, json: Bool)] = [
            (db, "timeout", false), (db, "timeout", true), (db, "title", false), (db, "title", true),
            (db, "theme", false), (db, "theme", true), (db, "missing", false), (db, "\\x{FF}k", false),
            (directory.path("absent.sqlite"), "timeout", false), (notADatabase, "timeout", false), (folder, "timeout", false),
        ]
        for (file, key, json) in cases {
            let quick = ["--db", file, "read", key] + (json ? ["--json"] : [])
            #expect(QuickReadArguments(quick) != nil)
            let parsed = ["--db=\(file)", "read"] + (json ? ["--json"] : []) + ["--", key]
            #expect(QuickReadArguments(parsed) == nil)
            let viaQuick = try await Prefs.run(quick)
            let viaParser = try await Prefs.run(parsed)
            #expect(viaQuick.status == viaParser.status, "\(quick): \(viaQuick) / \(viaParser)")
            #expect(viaQuick.stdout == viaParser.stdout, "\(quick): \(viaQuick) / \(viaParser)")
            #expect(viaQuick.stderr == viaParser.stderr, "\(quick): \(viaQuick) / \(viaParser)")
        }
        // A file named by PREFS_DB, and by --name under XDG_CONFIG_HOME.
        let environment = ["PREFS_DB": db]
        let viaQuick = try await Prefs.run(["read", "timeout"], environment: environment)
        let viaParser = try await Prefs.run(["read", "--", "timeout"], environment: environment)
        #expect(viaQuick.stdout == "30\n" && viaParser.stdout == "30\n", "\(viaQuick) / \(viaParser)")
        let home = ["XDG_CONFIG_HOME": directory.path("config")]
        try await Prefs.succeed(["--name", "app", "write", "timeout", "--type", "int", "5"], environment: home)
        let named = try await Prefs.run(["--name", "app", "read", "timeout"], environment: home)
        let namedParsed = try await Prefs.run(["--name=app", "read", "--", "timeout"], environment: home)
        #expect(named.stdout == "5\n" && named.stdout == namedParsed.stdout && named.status == namedParsed.status,
                "\(named) / \(namedParsed)")
    }
}
#endif
