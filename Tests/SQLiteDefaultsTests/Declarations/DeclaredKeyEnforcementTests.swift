import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

/// The database enforces declarations for every client: here, the sqlite3 shell.
@Suite("Declared keys: the database refuses what does not fit, from any client", .offThePool, .requiresSQLiteShell)
struct DeclaredKeyEnforcementTests {
    /// One literal of each storage class, and which declared types take it.
    static let literals: [(sql: String, storageClass: String, accepted: Set<DefaultsValueKind>)] = [
        ("NULL", "null", []),
        ("1", "integer", [.bool, .int, .double, .date]),
        ("7", "integer", [.int, .double, .date]),
        ("2.5", "real", [.double, .date]),
        ("-0.0", "real", [.double, .date]),
        ("'abc'", "text", [.string, .url]),
        ("'[1,2]'", "text", [.string, .url, .json]),
        ("x'0102'", "blob", [.data]),
    ]

    @Test("every storage class against every declared type, through the sqlite3 shell")
    func everyClassAgainstEveryType() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        for kind in DefaultsValueKind.allCases {
            try await store.declare(DefaultsDeclaration(key: "k_\(kind)", type: kind))
        }
        // One shell for every attempt (it goes on after an error and names the failing line):
        // line 2n is an INSERT, line 2n+1 prints what the key then holds.
        var script: [String] = []
        var attempts: [(kind: DefaultsValueKind, literal: (sql: String, storageClass: String, accepted: Set<DefaultsValueKind>))] = []
        for kind in DefaultsValueKind.allCases {
            for literal in Self.literals {
                let key = "k_\(kind)"
                script.append("INSERT INTO defaults(key, value) VALUES ('\(key)', \(literal.sql)) ON CONFLICT(key) DO UPDATE SET value = excluded.value;")
                script.append("SELECT \(attempts.count), coalesce((SELECT typeof(value) FROM defaults WHERE key = '\(key)'), 'none');")
                attempts.append((kind, literal))
            }
        }
        let result = try await runProcess(try sqlite3Path(), ["-batch", directory.database], input: script.joined(separator: "\n") + "\n")
        var held: [Int: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "|")
            if parts.count == 2, let index = Int(parts[0]) { held[index] = String(parts[1]) }
        }
        var errors: [Int: String] = [:]
        for line in result.error.split(separator: "\n") {
            // "Runtime error near line 7: …": line 7 is the INSERT of attempt 3.
            guard let range = line.range(of: "near line "), let colon = line[range.upperBound...].firstIndex(of: ":"),
                  let number = Int(line[range.upperBound..<colon]) else { continue }
            errors[(number - 1) / 2] = String(line[colon...])
        }
        var previous: [DefaultsValueKind: String] = [:]
        for (index, attempt) in attempts.enumerated() {
            let key = "k_\(attempt.kind)"
            if attempt.literal.accepted.contains(attempt.kind) {
                #expect(errors[index] == nil, "\(attempt.literal.sql) as \(attempt.kind): \(errors[index] ?? "")")
                #expect(held[index] == attempt.literal.storageClass, "\(attempt.literal.sql) as \(attempt.kind)")
                previous[attempt.kind] = attempt.literal.storageClass
            } else {
                let message = errors[index] ?? ""
                #expect(message.contains("declared key \"\(key)\" is \(attempt.kind)"), "\(attempt.literal.sql) as \(attempt.kind): \(message)")
                #expect(held[index] == (previous[attempt.kind] ?? "none"), "\(attempt.literal.sql) as \(attempt.kind) changed the row")
            }
        }
        #expect(held.count == attempts.count)
    }

    @Test("invalid JSON, a bool of 2 and a value outside the allowed ones are refused; delete is allowed")
    func contentRules() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsKeys.declaredTags, DefaultsKeys.declaredBeta, DefaultsKeys.declaredTheme, DefaultsKeys.declaredLevel,
                          DefaultsKeys.declaredTimeout)
        try await sqlite3(directory.database, "INSERT INTO defaults VALUES ('tags', '[1]'), ('beta', 1), ('theme', 'dark'), ('level', 5);")
        for (statement, fragment) in [
            ("UPDATE defaults SET value = '[1,' WHERE key = 'tags'", "not valid JSON"),
            ("UPDATE defaults SET value = 2 WHERE key = 'beta'", "the value 2 is refused (0 or 1 only)"),
            ("UPDATE defaults SET value = 'blue' WHERE key = 'theme'", "the value blue is refused (allowed: [\"light\",\"dark\"])"),
            ("UPDATE defaults SET value = 3 WHERE key = 'level'", "the value 3 is refused"),
            ("UPDATE defaults SET value = NULL WHERE key = 'beta'", "a null value is refused"),
            ("UPDATE defaults SET key = 'timeout' WHERE key = 'theme'", "\"timeout\" is int, so a text value is refused"),
        ] {
            let error = try await #require(throws: DefaultsError.self, "\(statement)") { try await sqlite3(directory.database, statement) }
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        #expect(try await sqlite3(directory.database, "SELECT key, quote(value) FROM defaults ORDER BY key") == "beta|1\nlevel|5\ntags|'[1]'\ntheme|'dark'")
        // Removing a declared key is always allowed; it reads as its default again.
        try await sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'theme'")
        #expect(try await waitForExternal { store[.declaredTheme] == .light })
        // The violations view is empty in a healthy file.
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_violations") == "0")
    }

    @Test("a key another client declared json after the store opened: the store's text that is not JSON is refused, alone or in a transaction, and nothing is written")
    func aJSONDeclarationTheStoreHasNotReadYet() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let config = DefaultsKey<String>("cfg", default: "")
        let other = DefaultsKey<String>("other", default: "")
        try await store.set("{\"a\":1}", for: config)
        // The store judges its own JSON in Swift and passes the verdict to its statement, which
        // reads the declaration itself (Migrations/0015): this one it has never seen.
        try await sqlite3(directory.database, "INSERT INTO defaults_schema(key, type) VALUES ('cfg', 'json')")
        let sentence = "declared key \"cfg\" is json, so a value that is not valid JSON is refused"
        let alone = try await #require(throws: DefaultsError.self) { try await store.set("{\"a\":", for: config) }
        #expect(alone.code == .declarationConflict && alone.message == sentence, "\(alone)")
        let inside = try await #require(throws: DefaultsError.self) {
            try await store.transaction { transaction in
                try transaction.set("written first", for: other)
                try transaction.set("[1,]", for: config)
            }
        }
        #expect(inside.code == .declarationConflict && inside.message == sentence, "\(inside)")
        #expect(try await sqlite3(directory.database, "SELECT group_concat(key || '=' || value, ' ') FROM defaults") == "cfg={\"a\":1}")
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes WHERE key IN ('cfg', 'other')") == "1")
        // Text that is JSON goes in, and so does any text of a key that is not declared json.
        try await store.set(" [1, {\"b\": null}] ", for: config)
        try await store.set("not json", for: other)
        #expect(try await sqlite3(directory.database, "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM defaults ORDER BY key)")
                == "cfg= [1, {\"b\": null}]  other=not json")
    }

    @Test("a store sees a refused raw write as no change at all")
    func refusedRawWriteNotifiesNobody() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsKeys.declaredTimeout)
        let seen = Collected<Int>()
        let token = store.observe(.declaredTimeout) { seen.append($0.newValue) }
        defer { token.cancel() }
        await #expect(throws: DefaultsError.self) { try await sqlite3(directory.database, "INSERT INTO defaults VALUES ('timeout', 'abc')") }
        try await sqlite3(directory.database, "INSERT INTO defaults VALUES ('timeout', 9)")
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [9])
    }

    @Test("10,000 declared keys: writes are checked by index, and all are described", .slowTier)
    func tenThousandDeclaredKeys() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.transaction { _ in
            for index in 0..<10_000 {
                try store.declare(DefaultsDeclaration(key: "key.\(index)", type: .int, defaultValue: .integer(Int64(index))))
            }
        }
        // How long this takes is a benchmark's business (speed is not asserted in tests).
        let declarations = try await store.declarations()
        #expect(declarations.count == 10_000)
        for index in stride(from: 0, to: 10_000, by: 997) {
            try await store.set(index, for: DefaultsKey<Int>("key.\(index)", default: 0))
            expectCode(.declarationConflict) { try store.set("x", for: DefaultsKey<String>("key.\(index)", default: "")) }
        }
        // The write triggers' check: the declaration first (an undeclared key stops there), by index.
        let plan = try await queryPlan(directory.database, "SELECT message FROM defaults_value_violations WHERE key = 'key.5'")
        // Every table is searched by its key index (json_each over the allowed values is a scan of one short list).
        let lines = plan.split(separator: "\n")
        #expect(lines.filter { $0.contains("USING INDEX") && $0.contains("SEARCH") }.count >= 2, "\(plan)")
        #expect(!lines.contains { $0.contains("SCAN") && !$0.contains("VIRTUAL TABLE") }, "\(plan)")
    }

    private func waitForExternal(_ condition: () -> Bool) async throws -> Bool {
        await waitUntil(timeout: .seconds(15), condition)
    }
}
