import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Migrations: the files in Migrations/ are what runs", .offThePool, .requiresSQLiteShell)
struct MigrationTests {
    // Tests/SQLiteDefaultsTests/Migration/MigrationTests.swift → the package's Migrations/.
    static let migrationsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Migrations")

    @Test func embeddedMigrationsAreTheFilesVerbatim() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.migrationsDirectory.path)
            .filter { $0.hasSuffix(".sql") && $0 != "schema.sql" }.sorted()  // schema.sql: SchemaFileTests
        #expect(files.count == Migration.embedded.count)
        for (file, migration) in zip(files, Migration.embedded) {
            let text = try String(contentsOf: Self.migrationsDirectory.appendingPathComponent(file), encoding: .utf8)
            #expect(migration.sql == text)
            #expect(file.hasPrefix(String(format: "%04d_", migration.version)))
            #expect(file == String(format: "%04d_%@.sql", migration.version, migration.name))
        }
        #expect(Migration.embedded.map(\.version) == Array(1...Migration.embedded.count))
    }

    @Test func aStoreBuildsTheSchemaTheFilesDescribe() async throws {
        let directory = try TemporaryDirectory()
        _ = try DefaultsStore(path: directory.database)
        let reference = directory.path + "/reference.sqlite"
        for migration in Migration.embedded {
            try await sqlite3(reference, migration.sql)
        }
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
        #expect(try await sqlite3(directory.database, schema) == (try await sqlite3(reference, schema)))
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
    }

    @Test func anOlderDatabaseIsMigratedForward() async throws {
        let directory = try TemporaryDirectory()
        try await sqlite3(directory.database, Migration.embedded[0].sql + "\nPRAGMA user_version = 1; INSERT INTO defaults VALUES ('count', 4);")
        let store = try DefaultsStore(path: directory.database)
        #expect(store[.count] == 4)
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
    }

    @Test("migration 5: a version-4 file keeps its log, and no sequence number AUTOINCREMENT handed out comes back")
    func theLogLosesAutoincrementAndKeepsItsNumbers() async throws {
        let directory = try TemporaryDirectory()
        let version4 = Migration.embedded.prefix { $0.version <= 4 }.map(\.sql).joined(separator: "\n")
        try await sqlite3(directory.database, version4 + """

            PRAGMA user_version = 4;
            INSERT INTO defaults VALUES ('a', 1), ('b', 2), ('c', 3);
            DELETE FROM defaults_changes WHERE seq = 3;  -- the newest entry, deleted by hand
            """)
        #expect(try await sqlite3(directory.database, "SELECT seq FROM sqlite_sequence") == "3")
        let store = try DefaultsStore(path: directory.database)
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
        #expect(try await sqlite3(directory.database, "SELECT sql FROM sqlite_master WHERE name = 'defaults_changes'").contains("AUTOINCREMENT") == false)
        // The entries are carried over; the deleted newest number is held by a marker.
        #expect(try await sqlite3(directory.database, "SELECT group_concat(seq || ':' || key, ' ') FROM defaults_changes") == "1:a 2:b 3:b")
        try await store.set(9, for: DefaultsKey<Int>("d", default: 0))
        #expect(try await sqlite3(directory.database, "SELECT seq, key FROM defaults_changes ORDER BY seq DESC LIMIT 1") == "4|d")
        // The shell's writes are still logged by the new triggers, and heard.
        let seen = Collected<Int>()
        let token = store.observe(DefaultsKey<Int>("a", default: 0)) { seen.append($0.newValue) }
        try await sqlite3(directory.database, "UPDATE defaults SET value = 10 WHERE key = 'a'")
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [10])
        #expect(try await sqlite3(directory.database, "SELECT seq, key FROM defaults_changes ORDER BY seq DESC LIMIT 1") == "5|a")
        _ = token
    }

    @Test("migration 5: a view of the user's own over the change log survives the rebuild")
    func aUserViewOfTheLogSurvivesMigration5() async throws {
        let directory = try TemporaryDirectory()
        let version4 = Migration.embedded.prefix { $0.version <= 4 }.map(\.sql).joined(separator: "\n")
        try await sqlite3(directory.database, version4 + """

            PRAGMA user_version = 4;
            INSERT INTO defaults VALUES ('a', 1);
            CREATE VIEW recent_keys AS SELECT key FROM defaults_changes ORDER BY seq DESC LIMIT 3;
            """)
        let store = try DefaultsStore(path: directory.database)
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
        try await store.set(2, for: DefaultsKey<Int>("b", default: 0))
        #expect(try await sqlite3(directory.database, "SELECT group_concat(key, ' ') FROM recent_keys") == "b a")
    }

    @Test("migration 14: a version-13 file's declarations refuse a SQL client's bad writes as before, with the same sentences")
    func checksCheapToPrepareKeepEveryRefusal() async throws {
        let directory = try TemporaryDirectory()
        let upTo13 = Migration.embedded.filter { $0.version <= 13 }.map(\.sql).joined(separator: "\n")
        try await sqlite3(directory.database, upTo13 + """

            PRAGMA user_version = 13;
            INSERT INTO defaults_schema(key, type) VALUES ('cfg', 'json'), ('on', 'bool');
            INSERT INTO defaults_schema(key, type, allowed) VALUES ('mode', 'string', '["fast","slow"]');
            INSERT INTO defaults VALUES ('cfg', '{"a":[1,2]}');
            """)
        _ = try DefaultsStore(path: directory.database)
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
        let refusals = [
            "INSERT INTO defaults VALUES ('cfg', '{\"a\":[1,2]') ON CONFLICT(key) DO UPDATE SET value = excluded.value;": "declared key \"cfg\" is json, so a value that is not valid JSON is refused",
            "UPDATE defaults SET value = '[1,]' WHERE key = 'cfg';": "declared key \"cfg\" is json, so a value that is not valid JSON is refused",
            "INSERT INTO defaults VALUES ('on', 2);": "declared key \"on\" is bool, so the value 2 is refused (0 or 1 only)",
            "INSERT INTO defaults VALUES ('on', 'yes');": "declared key \"on\" is bool, so a text value is refused",
            "INSERT INTO defaults VALUES ('mode', 'medium');": "declared key \"mode\" is string, so the value medium is refused (allowed: [\"fast\",\"slow\"])",
            "INSERT INTO defaults VALUES ('mode', NULL);": "declared key \"mode\" is string, so a null value is refused (delete the row to unset the key)",
            "INSERT INTO defaults VALUES (X'6b', 1);": "a key of defaults is TEXT, so a blob key is refused",
        ]
        for (sql, sentence) in refusals {
            let error = await #expect(throws: DefaultsError.self, "\(sql)") { try await sqlite3(directory.database, sql) }
            #expect(error?.message.contains(sentence) == true, "\(sql) → \(error?.message ?? "")")
        }
        // What fits still goes in, through an upsert that fires both the insert and the update checks.
        for sql in ["INSERT INTO defaults VALUES ('on', 1) ON CONFLICT(key) DO UPDATE SET value = excluded.value;",
                    "INSERT INTO defaults VALUES ('on', 0) ON CONFLICT(key) DO UPDATE SET value = excluded.value;",
                    "INSERT INTO defaults VALUES ('cfg', ' [ {\"b\" : null} ] ') ON CONFLICT(key) DO UPDATE SET value = excluded.value;",
                    "INSERT INTO defaults VALUES ('mode', 'slow');"] {
            try await sqlite3(directory.database, sql)
        }
        #expect(try await sqlite3(directory.database, "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM defaults ORDER BY key)")
                == "cfg= [ {\"b\" : null} ]  mode=slow on=0")
    }

    @Test("migration 15: a schema-14 backup restored under a running store is brought forward by its next write, alone or in a transaction, and no older trigger runs for it")
    func aRestoredSchema14FileIsBroughtForwardBeforeTheStoreWrites() async throws {
        let directory = try TemporaryDirectory()
        let backup = directory.path + "/backup.sqlite"
        // Schema 14's triggers asked two built-ins this library no longer redefines: under
        // them, valid JSON would be refused and a secret sealed with SQLite's own answer.
        // The page size of a new store's file: SQLite copies a backup into a WAL file only page for page.
        try await sqlite3(backup, "PRAGMA page_size = 2048;" + Migration.embedded.filter { $0.version <= 14 }.map(\.sql).joined(separator: "\n") + """

            PRAGMA user_version = 14;
            INSERT INTO defaults_schema(key, type) VALUES ('cfg', 'json');
            INSERT INTO defaults_schema(key, type, secret) VALUES ('token', 'string', 1);
            INSERT INTO defaults VALUES ('cfg', '[1]');
            """)
        let config = DefaultsKey<String>("cfg", default: "")
        let token = DefaultsKey<String>("token", default: "")
        for inTransaction in [false, true] {
            let store = try DefaultsStore(path: directory.database)
            try await store.set("x", for: DefaultsKey<String>("other", default: ""))
            try await sqlite3(directory.database, ".restore '\(backup)'")
            #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "14")
            if inTransaction {
                try await store.transaction { transaction in
                    try transaction.set("{\"b\":2}", for: config)
                    try transaction.set("sk-5555", for: token)
                }
            } else {
                try await store.set("{\"b\":2}", for: config)
                try await store.set("sk-5555", for: token)
            }
            #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
            #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'cfg'") == "{\"b\":2}")
            let entry = try #require(try await store.history(keys: ["token"], limit: 1).first)
            #expect(try store.value(writtenBy: entry.sequence) == .text("sk-5555"), "sealed by the library, not by SQLite's compile options")
            let refused = await #expect(throws: DefaultsError.self) { try await store.set("[1,", for: config) }
            #expect(refused?.message == "declared key \"cfg\" is json, so a value that is not valid JSON is refused")
            try FileManager.default.removeItem(atPath: directory.database)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.database + suffix) }
        }
    }

    @Test("migration 16: a version-15 file walks JSON one step per byte, refuses what it refused, and logs as before")
    func upsertsCheaperToPrepareKeepEveryVerdict() async throws {
        let directory = try TemporaryDirectory()
        let upTo15 = Migration.embedded.filter { $0.version <= 15 }.map(\.sql).joined(separator: "\n")
        try await sqlite3(directory.database, upTo15 + """

            PRAGMA user_version = 15;
            INSERT INTO defaults_schema(key, type) VALUES ('cfg', 'json');
            INSERT INTO defaults_schema(key, type, secret) VALUES ('token', 'string', 1);
            INSERT INTO defaults VALUES ('cfg', '[1]');
            """)
        _ = try DefaultsStore(path: directory.database)
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM sqlite_master WHERE name = 'defaults_json_grammar'") == "0")
        // Every state that took any byte ('*') has a step for each of the 255 bytes but NUL;
        // no state has a step for NUL.
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_json_steps WHERE ch = '00'") == "0")
        #expect(try await sqlite3(directory.database, """
            SELECT group_concat(state, ' ') FROM (SELECT state FROM defaults_json_steps WHERE length(ch) = 2
                GROUP BY state HAVING count(DISTINCT ch) = 255 ORDER BY state)
            """) == "fraction integer key power string zero")

        let notJSON = "declared key \"cfg\" is json, so a value that is not valid JSON is refused"
        let upsert = { (value: String) in "INSERT INTO defaults VALUES ('cfg', \(value)) ON CONFLICT(key) DO UPDATE SET value = excluded.value;" }
        for value in ["CAST(X'5B315D00' AS TEXT)", "'[1'", "'{\"a\" 1}'", "'\"\t\"'", "'01'", "CAST(X'220122' AS TEXT)"] {
            let error = await #expect(throws: DefaultsError.self, "\(value)") { try await sqlite3(directory.database, upsert(value)) }
            #expect(error?.message.contains(notJSON) == true, "\(value) → \(error?.message ?? "")")
        }
        for value in ["'\"caf\u{E9} \\u00e9 \\ud800\"'", "' {\"a\" : [1.5e3, -0, true, null]} '", "'0'"] {
            try await sqlite3(directory.database, upsert(value))
        }
        #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'cfg'") == "0")

        // The log triggers: a long value is omitted with its length, an integer kept, a secret masked.
        try await sqlite3(directory.database, """
            INSERT INTO defaults VALUES ('big', CAST(randomblob(20000) AS TEXT));
            INSERT INTO defaults VALUES ('n', 123456789012345678);
            INSERT INTO defaults VALUES ('token', 'sk-1');
            UPDATE defaults SET value = randomblob(16385) WHERE key = 'n';
            """)
        let entries = try await sqlite3(directory.database, """
            SELECT group_concat(key || ':' || coalesce(typeof(value), '') || ':' || coalesce(omitted, '-') || ':' || coalesce(secret, '-'), ' ')
            FROM (SELECT * FROM defaults_changes WHERE key IN ('big', 'n', 'token') ORDER BY seq)
            """)
        #expect(entries == "big:null:20000:- n:integer:-:- token:null:-:1 n:null:16385:-")
    }

    @Test func aFailingMigrationRollsBackAndIsNamed() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.database, create: true)
        let broken = Migrator(migrations: Migration.embedded + [Migration(version: Migration.latestVersion + 1, name: "broken", sql: "CREATE TABLE defaults(x);")])
        let error = #expect(throws: DefaultsError.self) { try broken.migrate(database) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("broken") == true)
        #expect(try Migrator.currentVersion(of: database) == Migration.latestVersion)
    }

    @Test func twoProcessesCreatingOneFileAtOnceBothSucceed() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.database
        let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
            for index in 0..<4 {
                group.addTask { try await runHelper("set-int", database, "k\(index)", "\(index)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.error)") }
        await #expect(try DefaultsStore(path: database).keys() == ["k0", "k1", "k2", "k3"])
    }
}
