import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Migrations/schema.sql is the schema of a new file", .offThePool, .requiresSQLiteShell)
struct SchemaFileTests {
    static let schemaFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Migrations/schema.sql")

    @Test func aNewStoreHasExactlyTheSchemaTheFileShows() async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).set(1, for: DefaultsKey<Int>("schema.sh", default: 0))
        // The query Scripts/schema.sh writes the file with.
        let actual = try await sqlite3(directory.database,
                                 "SELECT sql || ';' FROM sqlite_master WHERE sql NOT NULL ORDER BY type, name")
        let file = try String(contentsOf: Self.schemaFile, encoding: .utf8)
        // The header is the file's leading comment lines; the rest is the dump.
        let expected = file.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.hasPrefix("--") }
            .joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(actual == expected, """
            Migrations/schema.sql is not the schema a new store has: a migration changed it. \
            Run `bash Scripts/schema.sh` (after `swift build`) and review the diff.
            """)
    }

    @Test("a new file's schema calls one SQLite built-in that a library connection answers its own way: sqlite_source_id()")
    func oneRedefinedBuiltIn() async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).set(1, for: DefaultsKey<Int>("k", default: 0))
        let schema = try await sqlite3(directory.database, "SELECT group_concat(sql, ' ') FROM sqlite_master")
        // Up to schema 14 the triggers also called these two, which library connections redefined.
        #expect(!schema.contains("sqlite_compileoption_used") && !schema.contains("sqlite_compileoption_get"))
        #expect(schema.contains("sqlite_source_id()"))
    }
}
