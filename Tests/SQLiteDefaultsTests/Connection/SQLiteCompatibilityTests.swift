import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// One behaviour on every SQLite from 3.34 to the newest. Scripts/sqlite-matrix.sh runs this suite
/// (with the other SQL-facing ones) under 3.34.1, 3.40.1, 3.46.1 and the newest release, the
/// library and the `sqlite3` shell alike; each test names the version it ran on.
@Suite("Every SQLite from 3.34: one behaviour", .offThePool, .requiresSQLiteShell)
struct SQLiteCompatibilityTests {
    /// A store with one key declared of each kind a refusal can meet.
    private func declaredStore() throws -> (TemporaryDirectory, DefaultsStore) {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try store.declare(DefaultsDeclaration(key: "timeout", type: .int, defaultValue: .integer(30)))
        try store.declare(DefaultsDeclaration(key: "theme", type: .string, allowedValues: ["light", "dark"]))
        try store.declare(DefaultsDeclaration(key: "cfg", type: .json))
        try store.declare(DefaultsDeclaration(key: "beta", type: .bool))
        try store.declare(DefaultsDeclaration(key: "avatar", type: .data))
        return (directory, store)
    }

    @Test("a write a declaration refuses is .declarationConflict naming the key and the declared type, on this SQLite")
    func refusalIsDeclarationConflict() async throws {
        let (directory, store) = try declaredStore()
        defer { withExtendedLifetime(directory) {} }
        let refused: [(key: String, type: String, write: () throws -> Void)] = [
            ("timeout", "int", { try store.set("abc", for: DefaultsKey<String>("timeout", default: "")) }),
            ("theme", "string", { try store.set("blue", for: DefaultsKey<String>("theme", default: "")) }),
            ("cfg", "json", { try store.set("{not json", for: DefaultsKey<String>("cfg", default: "")) }),
            // A byte-order mark: JSON to Foundation, not to SQLite. The database decides.
            ("cfg", "json", { try store.set("\u{FEFF}{}", for: DefaultsKey<String>("cfg", default: "")) }),
            ("beta", "bool", { try store.set(2, for: DefaultsKey<Int>("beta", default: 0)) }),
            ("avatar", "data", { try store.set("text", for: DefaultsKey<String>("avatar", default: "")) }),
        ]
        for refusal in refused {
            do {
                try refusal.write()
                Issue.record("SQLite \(SQLiteLibrary.version): a write of \(refusal.key) was accepted")
            } catch DefaultsError.Code.declarationConflict {
                // The pattern users write; the details below.
            } catch {
                Issue.record("SQLite \(SQLiteLibrary.version): \(refusal.key): \(error)")
            }
            let error = #expect(throws: DefaultsError.self) { try refusal.write() }
            #expect(error?.key == refusal.key, "SQLite \(SQLiteLibrary.version)")
            #expect(error?.message.contains("\"\(refusal.key)\" is \(refusal.type)") == true,
                    "SQLite \(SQLiteLibrary.version): \(String(describing: error))")
        }
        // In a transaction too, and nothing of it commits.
        let error = #expect(throws: DefaultsError.self) {
            try store.transaction { transaction in
                transaction[DefaultsKey<String>("free", default: "")] = "kept?"
                try store.set("abc", for: DefaultsKey<String>("timeout", default: ""))
            }
        }
        #expect(error?.code == .declarationConflict, "SQLite \(SQLiteLibrary.version): \(String(describing: error))")
        await #expect(try store.keys().contains("free") == false)
        // The values that fit still do.
        try await store.set("dark", for: DefaultsKey<String>("theme", default: ""))
        try await store.set("{\"a\": 1}", for: DefaultsKey<String>("cfg", default: ""))
        #expect(try store.value(for: DefaultsKey<String>("theme", default: "")) == "dark")
    }

    @Test("a declaration the stored value breaks is .declarationConflict naming the key, on this SQLite")
    func declarationRefusedByStoredValue() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try store.set("abc", for: DefaultsKey<String>("timeout", default: ""))
        let error = #expect(throws: DefaultsError.self) {
            try store.declare(DefaultsDeclaration(key: "timeout", type: .int))
        }
        #expect(error?.code == .declarationConflict && error?.key == "timeout", "SQLite \(SQLiteLibrary.version): \(String(describing: error))")
        #expect(try store.declaration(for: "timeout") == nil)
    }

    @Test("the sqlite3 shell's refusal names the key and the declared type")
    func shellRefusalNamesKeyAndType() async throws {
        let (directory, _) = try declaredStore()
        let version = await shellVersion()  // for the messages, which cannot await
        for (sql, expected) in [
            ("INSERT INTO defaults VALUES ('timeout', 'abc');", "declared key \"timeout\" is int"),
            ("INSERT INTO defaults VALUES ('theme', 'blue');", "declared key \"theme\" is string"),
            ("INSERT INTO defaults VALUES ('beta', 7);", "declared key \"beta\" is bool"),
            ("INSERT INTO defaults_schema(key, type, allowed) VALUES ('mode', 'string', '{}');", "declared key \"mode\" is string"),
        ] {
            let result = try await shell(directory.database, sql)
            #expect(result.status != 0 && result.error.contains(expected),
                    "sqlite3 \(version): \(sql) → \(result.status) \(result.error)")
        }
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults") == "0")
    }

    @Test("a client with trusted_schema = OFF writes undeclared keys and gets the declared-key refusal for a declared one")
    func untrustedSchemaClient() async throws {
        let (directory, store) = try declaredStore()
        let seen = Collected<String>()
        let token = store.observe(DefaultsKey<String>("mode", default: "")) { seen.append($0.newValue) }
        defer { token.cancel() }
        let untrusted = ["-cmd", "PRAGMA trusted_schema = OFF"]
        let version = await shellVersion()  // for the messages, which cannot await
        // Every statement a SQL client may run, on undeclared keys.
        for sql in [
            "INSERT INTO defaults VALUES ('mode', 'fast');",
            "UPDATE defaults SET value = 'slow' WHERE key = 'mode';",
            "INSERT INTO defaults VALUES ('scratch', 1); DELETE FROM defaults WHERE key = 'scratch';",
            "INSERT INTO defaults VALUES ('timeout', 45);",  // declared, and it fits
            "INSERT INTO defaults_schema(key, type) VALUES ('port', 'int');",
            "SELECT count(*) FROM defaults_violations;",
        ] {
            let result = try await shell(directory.database, sql, options: untrusted)
            #expect(result.status == 0 && !result.error.contains("unsafe use"),
                    "sqlite3 \(version) with trusted_schema OFF: \(sql) → \(result.error)")
        }
        #expect(await seen.waitAsync { $0.last == "slow" }, "SQLite \(SQLiteLibrary.version): \(seen.all)")
        #expect(try store.value(for: DefaultsKey<Int>("timeout", default: 0)) == 45)
        #expect(try store.declaration(for: "port")?.type == .int)
        // A declared key's refusal: the declared-key sentence, never "unsafe use of".
        let refused = try await shell(directory.database, "UPDATE defaults SET value = 'abc' WHERE key = 'timeout';", options: untrusted)
        #expect(refused.status != 0 && refused.error.contains("declared key \"timeout\" is int"),
                "sqlite3 \(version) with trusted_schema OFF: \(refused.error)")
        let notJSON = try await shell(directory.database, "INSERT INTO defaults VALUES ('cfg', '{x');", options: untrusted)
        #expect(notJSON.status != 0 && !notJSON.error.contains("unsafe use"), "\(notJSON.error)")
        #expect(try store.value(for: DefaultsKey<Int>("timeout", default: 0)) == 45)
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults WHERE key = 'cfg'") == "0")
    }

    @Test("a key bound as a BLOB is refused from SQL, and a row already stored that way is no key of the store")
    func blobKeys() async throws {
        let (directory, store) = try declaredStore()
        // x'74696d656f7574' is "timeout": the declared int key, bound as bytes (Python's b"timeout").
        let refused = try await shell(directory.database, "INSERT INTO defaults VALUES (x'74696d656f7574', 'abc');")
        #expect(refused.status != 0 && refused.error.contains("blob key is refused"), "\(refused.error)")
        let renamed = try await shell(directory.database, "INSERT INTO defaults VALUES ('x', 1); UPDATE defaults SET key = x'79' WHERE key = 'x';")
        #expect(renamed.status != 0, "\(renamed.error)")
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults WHERE typeof(key) <> 'text'") == "0")

        // A file from before schema 10 may hold such a row beside the TEXT key: readers skip it.
        try await store.set(30, for: DefaultsKey<Int>("timeout", default: 0))
        try await sqlite3(directory.database, """
            DROP TRIGGER defaults_declared_insert;
            INSERT INTO defaults VALUES (x'74696d656f7574', 'abc');
            """)
        await #expect(try store.keys().filter { $0 == "timeout" }.count == 1)
        await #expect(try store.entries().filter { $0.key == "timeout" }.map(\.value) == [.integer(30)])
        #expect(try store.value(for: DefaultsKey<Int>("timeout", default: 0)) == 30)
    }

    @Test("a SQLite older than 3.34.1 is refused with one named error giving both versions")
    func olderSQLiteIsRefused() throws {
        // The running library is never older (the matrix starts at 3.34.1): the check is asked
        // about an older number here, and prefsTests runs `prefs` with an older version number
        // injected through LD_PRELOAD (SQLiteFloorTests).
        let error = #expect(throws: DefaultsError.self) { try SQLiteLibrary.checkSupported(versionNumber: 3_033_000) }
        #expect(error?.code == .unsupportedSQLite)
        #expect(error?.message.contains("3.33.0") == true && error?.message.contains("3.34.1") == true, "\(String(describing: error))")
        try SQLiteLibrary.checkSupported()
        try SQLiteLibrary.checkSupported(versionNumber: 3_034_001)
        #expect(SQLiteLibrary.versionNumber >= SQLiteLibrary.minimumVersionNumber)
    }

    // MARK: The shell

    private func shell(_ database: String, _ sql: String, options: [String] = []) async throws -> ProcessResult {
        try await runProcess(try sqlite3Path(), ["-batch"] + options + ["-cmd", ".timeout 10000", database], input: sql)
    }

    private func shellVersion() async -> String {
        let output = (try? await runProcess(try sqlite3Path(), ["--version"]))?.output ?? ""
        return output.split(separator: " ").first.map(String.init) ?? "?"
    }
}
