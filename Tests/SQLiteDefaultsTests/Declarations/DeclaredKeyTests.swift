import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

enum DeclaredTheme: String, CaseIterable, Sendable { case light, dark }
enum DeclaredLevel: Int, CaseIterable, Sendable { case low = 1, high = 5 }
struct DeclaredProfile: Codable, Equatable, Sendable { var name: String }

extension DefaultsKeys {
    static let declaredTimeout = DefaultsKey<Int>("timeout", default: 30, summary: "Request timeout, in seconds")
    static let declaredTheme = DefaultsKey<DeclaredTheme>("theme", default: .light)
    static let declaredLevel = DefaultsKey<DeclaredLevel>("level", default: .low)
    static let declaredProfile = DefaultsKey<DeclaredProfile?>("profile")
    static let declaredAvatar = DefaultsKey<Data>("avatar", default: Data([1, 2]))
    static let declaredSince = DefaultsKey<Date>("since", default: Date(timeIntervalSince1970: 0))
    static let declaredHome = DefaultsKey<URL>("home", default: URL(string: "https://example.com")!)
    static let declaredBeta = DefaultsKey<Bool>("beta", default: false)
    static let declaredRatio = DefaultsKey<Double>("ratio", default: 0.5)
    static let declaredTags = DefaultsKey<[Int]>("tags", default: [])
    static let declaredOptionalTheme = DefaultsKey<DeclaredTheme?>("optional_theme")
}

/// Expects `body` to throw a ``DefaultsError`` with `code`.
func expectCode(_ code: DefaultsError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    let error = #expect(throws: DefaultsError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
}

@Suite("Declared keys: the Swift API", .offThePool, .requiresSQLiteShell)
struct DeclaredKeyTests {
    @Test("a declaration records type, Swift type, default, summary and allowed values, readable by SQL")
    func declarationIsRecorded() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsKeys.declaredTimeout, DefaultsKeys.declaredTheme, DefaultsKeys.declaredProfile,
                          DefaultsKeys.declaredAvatar, DefaultsKeys.declaredSince, DefaultsKeys.declaredHome,
                          DefaultsKeys.declaredBeta, DefaultsKeys.declaredRatio, DefaultsKeys.declaredTags,
                          DefaultsKeys.declaredLevel, DefaultsKeys.declaredOptionalTheme)
        let declarations = try await store.declarations()
        #expect(declarations.map(\.key) == ["avatar", "beta", "home", "level", "optional_theme", "profile", "ratio", "since", "tags", "theme", "timeout"])
        #expect(try store.declaration(for: "timeout") == DefaultsDeclaration(
            key: "timeout", type: .int, swiftType: "Int", defaultValue: .integer(30), summary: "Request timeout, in seconds"))
        #expect(try store.declaration(for: "theme")?.allowedValues == ["light", "dark"])
        #expect(try store.declaration(for: "level")?.allowedValues == ["1", "5"])
        #expect(try store.declaration(for: "level")?.type == .int)
        #expect(try store.declaration(for: "profile")?.type == .json)
        #expect(try store.declaration(for: "profile")?.defaultValue == nil)  // Optional: no default stored
        #expect(try store.declaration(for: "optional_theme")?.allowedValues == ["light", "dark"])
        #expect(try store.declaration(for: "avatar")?.type == .data)
        #expect(try store.declaration(for: "since")?.type == .date)
        #expect(try store.declaration(for: "home")?.type == .url)
        #expect(try store.declaration(for: "beta")?.type == .bool)
        #expect(try store.declaration(for: "tags")?.type == .json)
        #expect(try store.declaration(for: "nothing") == nil)
        let row = try await sqlite3(directory.database, "SELECT key, type, swift_type, quote(default_value), summary, allowed FROM defaults_schema WHERE key IN ('timeout', 'theme') ORDER BY key")
        #expect(row == "theme|string|DeclaredTheme|'light'||[\"light\",\"dark\"]\ntimeout|int|Int|30|Request timeout, in seconds|")
    }

    @Test("declaring what is declared writes nothing and notifies nobody")
    func redeclaringWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsKeys.declaredTimeout, DefaultsKeys.declaredTheme)
        let changes = Collected<String>()
        let token = store.observe { changes.append($0.key) }
        defer { token.cancel() }
        let other = try DefaultsStore(path: directory.database)
        let walBefore = try FileManager.default.attributesOfItem(atPath: directory.database + "-wal")[.size] as? Int
        try await store.declare(DefaultsKeys.declaredTimeout, DefaultsKeys.declaredTheme)
        try await other.declare(DefaultsKeys.declaredTheme, DefaultsKeys.declaredTimeout)
        let walAfter = try FileManager.default.attributesOfItem(atPath: directory.database + "-wal")[.size] as? Int
        #expect(walBefore == walAfter)
        store[.declaredTimeout] = 31  // a change that is heard, as a fence for the silence before it
        #expect(await changes.waitAsync(count: 1))
        #expect(changes.all == ["timeout"])
    }

    @Test("the library's own writes of every value type never trip the triggers")
    func ownWritesNeverTrip() throws {
        let store = try DefaultsStore.inMemory()
        try store.declare(DefaultsKeys.declaredTimeout, DefaultsKeys.declaredTheme, DefaultsKeys.declaredProfile,
                          DefaultsKeys.declaredAvatar, DefaultsKeys.declaredSince, DefaultsKeys.declaredHome,
                          DefaultsKeys.declaredBeta, DefaultsKeys.declaredRatio, DefaultsKeys.declaredTags,
                          DefaultsKeys.declaredLevel, DefaultsKeys.declaredOptionalTheme)
        try store.set(Int.min, for: .declaredTimeout)
        try store.set(.dark, for: .declaredTheme)
        try store.set(.high, for: .declaredLevel)
        try store.set(DeclaredProfile(name: "Ada \"<script>\""), for: .declaredProfile)
        try store.set(nil, for: .declaredProfile)
        try store.set(DeclaredProfile(name: "Bob"), for: .declaredProfile)
        try store.set(Data(), for: .declaredAvatar)
        try store.set(Date(timeIntervalSince1970: 1_700_000_000.123), for: .declaredSince)
        try store.set(URL(string: "file:///tmp/a%20b")!, for: .declaredHome)
        try store.set(true, for: .declaredBeta)
        try store.set(-0.0, for: .declaredRatio)
        #expect(try store.value(for: .declaredRatio).sign == .minus)
        try store.set([1, 2, 3], for: .declaredTags)
        try store.set(.dark, for: .declaredOptionalTheme)
        try store.modify(.declaredTimeout) { $0 = 45 }
        #expect(try store.value(for: .declaredProfile) == DeclaredProfile(name: "Bob"))
        // NaN is refused before SQL, as for any key.
        #expect(throws: DefaultsError.self) { try store.set(.nan, for: .declaredRatio) }
        #expect(try store.value(for: .declaredRatio).sign == .minus)
    }

    @Test("a write the declaration refuses throws .declarationConflict naming key and type, and changes nothing")
    func refusedLibraryWrite() throws {
        let store = try DefaultsStore.inMemory()
        try store.declare(DefaultsKeys.declaredTimeout, DefaultsKeys.declaredBeta)
        store[.declaredTimeout] = 40
        let wrong = DefaultsKey<String>("timeout", default: "")
        let error = try #require(throws: DefaultsError.self) { try store.set("abc", for: wrong) }
        #expect(error.code == .declarationConflict)
        #expect(error.key == "timeout")
        #expect(error.message.contains("\"timeout\" is int"))
        #expect(store[.declaredTimeout] == 40)
        expectCode(.declarationConflict) { try store.set(2, for: DefaultsKey<Int>("beta", default: 0)) }
        #expect(store[.declaredBeta] == false)
        // Removing is always allowed: the key falls back to its default.
        try store.remove(.declaredTimeout)
        #expect(store[.declaredTimeout] == 30)
    }

    @Test("a declaration that the stored value breaks is refused, naming key and stored type; nothing changes")
    func conflictingDeclaration() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.set("abc", for: DefaultsKey<String>("timeout", default: ""))
        let error = try #require(throws: DefaultsError.self) { try store.declare(DefaultsKeys.declaredTheme, DefaultsKeys.declaredTimeout) }
        #expect(error.code == .declarationConflict)
        #expect(error.key == "timeout")
        #expect(error.message.contains("text"))
        await #expect(try store.declarations().isEmpty)  // theme, in the same call, is not declared either
        #expect(try store.value(for: DefaultsKey<String>("timeout", default: "")) == "abc")
        // From the shell too: the schema's own triggers refuse it.
        await #expect(throws: (any Error).self) {
            try await sqlite3(directory.database, "INSERT INTO defaults_schema(key, type) VALUES ('timeout', 'int');")
        }
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_schema") == "0")
        // A declared default that does not fit the type is refused before anything is written.
        expectCode(.declarationConflict) {
            try store.declare(DefaultsDeclaration(key: "n", type: .int, defaultValue: .text("x")))
        }
        expectCode(.declarationConflict) {
            try store.declare(DefaultsDeclaration(key: "n", type: .string, defaultValue: .text("c"), allowedValues: ["a", "b"]))
        }
    }

    @Test("types that keep to no one declared type are refused with a reason")
    func undeclarableTypes() throws {
        let store = try DefaultsStore.inMemory()
        expectCode(.declarationConflict) { try store.declare(DefaultsKey<UInt64>("big", default: 0)) }
        expectCode(.declarationConflict) { try store.declare(DefaultsKey<SQLiteValue?>("raw")) }
        #expect(try store.declarations().isEmpty)
    }

    @Test("undeclare, then any value is accepted again")
    func undeclareThenFreeWrite() throws {
        let store = try DefaultsStore.inMemory()
        try store.declare(DefaultsKeys.declaredTimeout)
        expectCode(.declarationConflict) { try store.set("abc", for: DefaultsKey<String>("timeout", default: "")) }
        try store.undeclare("timeout")
        try store.undeclare("timeout")  // idempotent
        try store.set("abc", for: DefaultsKey<String>("timeout", default: ""))
        #expect(try store.declaration(for: "timeout") == nil)
    }

    @Test("declaring inside a transaction joins it: a rollback takes the declaration back")
    func declaringInsideATransaction() throws {
        let store = try DefaultsStore.inMemory()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.transaction { tx in
                try store.declare(DefaultsKeys.declaredTimeout)
                tx[.declaredTimeout] = 5
                throw Stop()
            }
        }
        #expect(try store.declarations().isEmpty)
        try store.transaction { tx in
            try store.declare(DefaultsKeys.declaredTimeout)
            tx[.declaredTimeout] = 5
        }
        #expect(try store.declaration(for: "timeout")?.type == .int)
        #expect(store[.declaredTimeout] == 5)
    }

    @Test("keys named with quotes, %, a newline or <script> are declared and named in refusals")
    func awkwardKeyNames() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        for name in ["it's \"quoted\"", "100%", "two\nlines", "<script>alert(1)</script>", "a\" is int, so"] {
            try store.declare(DefaultsKey<Int>(name, default: 1))
            let error = try #require(throws: DefaultsError.self) { try store.set("x", for: DefaultsKey<String>(name, default: "")) }
            #expect(error.code == .declarationConflict)
            #expect(error.key == name)
            #expect(store[DefaultsKey<Int>(name, default: 1)] == 1)
        }
    }

    @Test("a file with declarations is refused by the previous version of the library, untouched")
    func previousVersionRefusesTheFile() async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).declare(DefaultsKeys.declaredTimeout)
        let database = try Database(path: directory.database, create: false)
        let previous = Migrator(migrations: Array(Migration.embedded.prefix(5)))
        expectCode(.newerSchema) { try previous.migrate(database) }
        database.close()
        #expect(try await sqlite3(directory.database, "SELECT key FROM defaults_schema") == "timeout")
    }
}
