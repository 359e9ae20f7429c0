import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Storage is plain SQLite any tool can read", .offThePool, .requiresSQLiteShell)
struct StorageFormatTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func typeAndValue(_ key: String) async throws -> String {
        try await sqlite3(directory.database, "SELECT typeof(value) || '|' || quote(value) FROM defaults WHERE key = '\(key)'")
    }

    @Test func scalarsUseNativeStorageClasses() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await store.set(42, for: DefaultsKey<Int>("int", default: 0))
        try await store.set(true, for: DefaultsKey<Bool>("bool", default: false))
        try await store.set(2.5, for: DefaultsKey<Double>("double", default: 0))
        try await store.set("hi", for: DefaultsKey<String>("string", default: ""))
        try await store.set(Data([0xCA, 0xFE]), for: DefaultsKey<Data>("data", default: Data()))
        try await store.set(Date(timeIntervalSince1970: 1_700_000_000), for: DefaultsKey<Date>("date", default: .distantPast))
        try await store.set(URL(string: "https://example.com")!, for: DefaultsKey<URL>("url", default: URL(fileURLWithPath: "/")))
        try await store.set(.dark, for: .theme)
        try await store.set(.high, for: DefaultsKey<Level>("level", default: .low))
        try await store.set(.safe, for: DefaultsKey<Mode>("mode", default: .fast))
        try await store.set(UInt64.max, for: DefaultsKey<UInt64>("big", default: 0))

        #expect(try await typeAndValue("int") == "integer|42")
        #expect(try await typeAndValue("bool") == "integer|1")
        #expect(try await typeAndValue("double") == "real|2.5")
        #expect(try await typeAndValue("string") == "text|'hi'")
        #expect(try await typeAndValue("data") == "blob|X'CAFE'")
        #expect(try await typeAndValue("date") == "real|1700000000.0")
        #expect(try await sqlite3(directory.database, "SELECT datetime(value, 'unixepoch') FROM defaults WHERE key = 'date'") == "2023-11-14 22:13:20")
        #expect(try await typeAndValue("url") == "text|'https://example.com'")
        #expect(try await typeAndValue("theme") == "text|'dark'")
        #expect(try await typeAndValue("level") == "integer|2")
        #expect(try await typeAndValue("mode") == "text|'safe'")
        #expect(try await typeAndValue("big") == "text|'18446744073709551615'")
    }

    @Test func collectionsAndCodableAreJSONText() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await store.set([1, 2, 3], for: DefaultsKey<[Int]>("ints", default: []))
        try await store.set(["b": 2, "a": 1], for: DefaultsKey<[String: Int]>("dict", default: [:]))
        try await store.set(Profile(name: "Ada", age: 36, joined: Date(timeIntervalSince1970: 10)), for: .profile)
        #expect(try await typeAndValue("ints") == "text|'[1,2,3]'")
        #expect(try await typeAndValue("dict") == "text|'{\"a\":1,\"b\":2}'")
        #expect(try await typeAndValue("profile") == "text|'{\"age\":36,\"joined\":10,\"name\":\"Ada\"}'")
        #expect(try await sqlite3(directory.database, "SELECT json_extract(value, '$.name') FROM defaults WHERE key = 'profile'") == "Ada")
    }

    @Test func valuesWrittenWithPlainSQLAreRead() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await sqlite3(directory.database, """
            INSERT INTO defaults(key, value) VALUES ('count', 7), ('name', 'Zed'), ('ints', '[4,5]'),
              ('theme', 'dark'), ('d', 3);
            """)
        let fresh = try DefaultsStore(path: directory.database)
        #expect(fresh[.count] == 7)
        #expect(fresh[.name] == "Zed")
        #expect(fresh[DefaultsKey<[Int]>("ints", default: [])] == [4, 5])
        #expect(fresh[.theme] == .dark)
        #expect(fresh[DefaultsKey<Double>("d", default: 0)] == 3.0)  // INTEGER widens to Double
        _ = store
    }

    @Test func schemaIsARowidTableWithUniqueKeys() async throws {
        _ = try DefaultsStore(path: directory.database)
        let schema = try await sqlite3(directory.database, "SELECT sql FROM sqlite_master WHERE name = 'defaults'")
        #expect(schema.contains("key   TEXT NOT NULL UNIQUE"))
        #expect(!schema.uppercased().contains("WITHOUT ROWID"))
        #expect(try await sqlite3(directory.database, "PRAGMA journal_mode") == "wal")
        #expect(try await sqlite3(directory.database, "SELECT rowid FROM defaults LIMIT 1") == "")
    }

    /// A file the library creates has 2,048-byte pages: a commit's two `-wal` frames cost half.
    @Test func aNewFileHasSmallPages() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await store.set("Ann", for: .name)
        #expect(try await sqlite3(directory.database, "PRAGMA page_size") == "2048")
        #expect(try await sqlite3(directory.database, "PRAGMA integrity_check") == "ok")
    }

    /// A file made elsewhere keeps its page size (SQLite changes it only on a file with no
    /// pages), and works as any other: here a version-1 file the `sqlite3` shell wrote with
    /// SQLite's default size, and one with 65,536-byte pages.
    @Test(arguments: [4_096, 65_536])
    func anExistingFileKeepsItsPageSize(pageSize: Int) async throws {
        try await sqlite3(directory.database, "PRAGMA page_size = \(pageSize); CREATE TABLE defaults(key TEXT NOT NULL UNIQUE, value); INSERT INTO defaults VALUES ('name', 'Old'); PRAGMA user_version = 1;")
        let store = try DefaultsStore(path: directory.database)
        #expect(store[.name] == "Old")
        try await store.set("New", for: .name)
        let history = try await store.history(for: .name)
        #expect(history.first?.value == .value("New"))
        #expect(try await sqlite3(directory.database, "PRAGMA page_size") == "\(pageSize)")
        #expect(try DefaultsStore(path: directory.database)[.name] == "New")
    }

    /// SQLite's backup API (`sqlite3 .restore`) refuses to copy a database of another page size
    /// into a file in WAL mode: a backup of a file made with SQLite's default 4,096-byte pages is
    /// refused and changes nothing; converted with `VACUUM`, it restores, and the store hears it.
    @Test func aBackupOfAnotherPageSizeIsRefusedByRestoreUntilConverted() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await store.set("Live", for: .name)
        // A backup of a file made before this version: SQLite's default page size.
        let backup = directory.path + "/older.sqlite"
        try await sqlite3(backup, "CREATE TABLE defaults(key TEXT NOT NULL UNIQUE, value); PRAGMA user_version = 1;")
        do {
            let older = try DefaultsStore(path: backup)
            try await older.set("Backup", for: .name)
            try older.close()
        }
        try await sqlite3(backup, "PRAGMA journal_mode = DELETE")
        #expect(try await sqlite3(backup, "PRAGMA page_size") == "4096")
        _ = try? await sqlite3(directory.database, ".restore '\(backup)'")
        #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'name'") == "Live")
        #expect(try await sqlite3(directory.database, "PRAGMA integrity_check") == "ok")
        try await store.set("Still live", for: .name)

        try await sqlite3(backup, "PRAGMA page_size = 2048; VACUUM;")
        #expect(try await sqlite3(backup, "PRAGMA page_size") == "2048")
        let heard = Collected<DefaultsChange<String>>()
        let token = store.observe(.name) { heard.append($0) }
        try await sqlite3(directory.database, ".restore '\(backup)'")
        #expect(await heard.waitAsync { $0.last?.newValue == "Backup" })
        #expect(store[.name] == "Backup")
        token.cancel()
    }
}
