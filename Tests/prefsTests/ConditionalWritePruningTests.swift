#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// `--if-seq 0` is "create only" even for a key whose every history entry was pruned: its
/// version survives pruning (issue 46: repro 44).
@Suite("--if-seq across a pruned history", .offThePool, .requiresSQLiteShell)
struct ConditionalWritePruningTests {
    @Test("--if-seq 0 refuses a stable key whose only change was pruned; its version is still that change's")
    func createOnlyAfterPruning() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "api.url", "https://prod.example/"])
        let version = try await SQLite3.run(database, "SELECT max(seq) FROM defaults_changes WHERE key = 'api.url'")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Other traffic, from a SQL client, past the 100 kept; a library store then prunes.
        try await SQLite3.run(database, """
            DELETE FROM defaults_history_settings; INSERT INTO defaults_history_settings(kept) VALUES (100);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO defaults(key, value) SELECT 'other.' || i, i FROM n;
            """)
        try await Prefs.succeed(["--db", database, "write", "pruner", "1"])
        #expect(try await SQLite3.run(database, "SELECT count(*) FROM defaults_changes WHERE key = 'api.url'") == "0\n")
        let line = try await Prefs.fail(["--db", database, "write", "api.url", "https://new.example/", "--if-seq", "0"], status: 3)
        #expect(line == "prefs: key 'api.url' is at version \(version), not 0; nothing was written")
        #expect(try await Prefs.succeed(["--db", database, "read", "api.url"]) == "https://prod.example/\n")
        // The version it reports is the one that works.
        try await Prefs.succeed(["--db", database, "write", "api.url", "https://new.example/", "--if-seq", version])
        #expect(try await Prefs.succeed(["--db", database, "read", "api.url"]) == "https://new.example/\n")
    }
}
#endif
