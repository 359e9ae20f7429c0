import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Bad input gets a clear DefaultsError and loses nothing", .offThePool, .requiresSQLiteShell)
struct BadInputTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func pathThatIsADirectory() throws {
        let error = #expect(throws: DefaultsError.self) { try DefaultsStore(path: directory.path) }
        #expect(error?.code == .isDirectory)
        #expect(error?.description.contains(directory.path) == true)
    }

    @Test func fileThatIsNotADatabaseIsRefusedAndUntouched() throws {
        let path = directory.path + "/notes.txt"
        let bytes = Data(String(repeating: "This is not a database, it is a text file.\n", count: 200).utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: DefaultsError.self) { try DefaultsStore(path: path) }
        #expect(error?.code == .notADatabase)
        #expect(error?.sqliteCode == 26)
        #expect(fileBytes(path) == bytes)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func databaseWithNewerSchemaIsRefusedAndUntouched() async throws {
        do {
            let store = try DefaultsStore(path: directory.database)
            store[.name] = "kept"
        }
        try await sqlite3(directory.database, "PRAGMA user_version = 999; PRAGMA wal_checkpoint(TRUNCATE);")
        let before = fileBytes(directory.database)
        let error = #expect(throws: DefaultsError.self) { try DefaultsStore(path: directory.database) }
        #expect(error?.code == .newerSchema)
        #expect(error?.message.contains("999") == true)
        #expect(fileBytes(directory.database) == before)
        #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'name'") == "kept")
    }

    @Test func emptyKey() throws {
        let store = try DefaultsStore(path: directory.database)
        let empty = DefaultsKey<Int>("", default: 3)
        #expect(throws: DefaultsError.self) { try store.set(1, for: empty) }
        let error = #expect(throws: DefaultsError.self) { try store.value(for: empty) }
        #expect(error?.code == .invalidKey)
        #expect(throws: DefaultsError.self) { try store.remove(empty) }
        #expect(throws: DefaultsError.self) { try store.modify(empty) { $0 += 1 } }
        #expect(store[empty] == 3)
        #expect(!store.contains(empty))
        store[empty] = 5  // non-throwing: reported, not dropped silently
        #expect(store.lastReportedError?.code == .invalidKey)
        #expect(try store.keys().isEmpty)
    }

    @Test func storedValueOfTheWrongType() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES ('count', 'twelve'), ('flag', 7), ('name', x'00ff'), ('nul', NULL)")
        let fresh = try DefaultsStore(path: directory.database)
        #expect(fresh[.count] == 0)
        let error = #expect(throws: DefaultsError.self) { try fresh.value(for: .count) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.key == "count")
        #expect(error?.description.contains("text") == true)
        #expect(throws: DefaultsError.self) { try fresh.value(for: DefaultsKey<Bool>("flag", default: false)) }
        #expect(throws: DefaultsError.self) { try fresh.value(for: .name) }
        #expect(throws: DefaultsError.self) { try fresh.value(for: DefaultsKey<Int>("nul", default: 0)) }
        #expect(try fresh.value(for: DefaultsKey<Int?>("nul")) == nil)
        // modify refuses to overwrite what it cannot read
        #expect(throws: DefaultsError.self) { try fresh.modify(.count) { $0 += 1 } }
        #expect(try await sqlite3(directory.database, "SELECT quote(value) FROM defaults ORDER BY key") == "'twelve'\n7\nX'00FF'\nNULL")
        _ = store
    }

    @Test func jsonThatNoLongerDecodes() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await sqlite3(directory.database, """
            INSERT INTO defaults(key, value) VALUES ('profile', '{"name": "Ada"}'), ('ints', '[1, "two"]'),
              ('broken', '{not json'), ('theme', 'purple'), ('big', '-5'), ('u8', 300);
            """)
        let fresh = try DefaultsStore(path: directory.database)
        #expect(fresh[.profile] == nil)
        let error = #expect(throws: DefaultsError.self) { try fresh.value(for: .profile) }
        #expect(error?.code == .decodingFailed)
        #expect(fresh[DefaultsKey<[Int]>("ints", default: [9])] == [9])
        #expect(throws: DefaultsError.self) { try fresh.value(for: DefaultsKey<[Int]>("ints", default: [])) }
        #expect(throws: DefaultsError.self) { try fresh.value(for: DefaultsKey<[String: Int]>("broken", default: [:])) }
        let theme = #expect(throws: DefaultsError.self) { try fresh.value(for: .theme) }
        #expect(theme?.code == .decodingFailed)
        #expect(fresh[.theme] == .light)
        #expect(throws: DefaultsError.self) { try fresh.value(for: DefaultsKey<UInt64>("big", default: 0)) }
        #expect(throws: DefaultsError.self) { try fresh.value(for: DefaultsKey<UInt8>("u8", default: 0)) }
        #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'profile'") == "{\"name\": \"Ada\"}")
        _ = store
    }

    @Test func valueTooLarge() throws {
        var configuration = DefaultsStore.Configuration()
        configuration.maximumValueLength = 1_000
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        store[.name] = "small"
        let error = #expect(throws: DefaultsError.self) { try store.set(String(repeating: "x", count: 1_001), for: .name) }
        #expect(error?.code == .valueTooLarge)
        #expect(throws: DefaultsError.self) { try store.set(Data(count: 5_000), for: DefaultsKey<Data>("blob", default: Data())) }
        #expect(store[.name] == "small")
        // A raw write past SQLite's own limit is refused by SQLite with the same code.
        #expect(throws: DefaultsError.self) { try store.set(Array(repeating: 1, count: 600), for: DefaultsKey<[Int]>("list", default: [])) }
    }

    @Test func parentDirectoryThatCannotBeCreated() throws {
        let blocker = directory.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let error = #expect(throws: DefaultsError.self) { try DefaultsStore(path: blocker + "/sub/defaults.sqlite") }
        #expect(error?.code == .cannotCreateDirectory)
        #expect(fileBytes(blocker) == Data("x".utf8))
    }

    @Test func missingParentDirectoriesAreCreated() throws {
        let path = directory.path + "/a/b/c/defaults.sqlite"
        let store = try DefaultsStore(path: path)
        store[.count] = 1
        #expect(try permissions(directory.path + "/a/b/c") == 0o700)
        #expect(try DefaultsStore(path: path)[.count] == 1)
    }

    @Test func standardNameMustBeOnePathComponent() throws {
        for name in ["", "a/b", "..", ".", "../etc", "x\0y"] {
            let error = #expect(throws: DefaultsError.self) { try DefaultsStore.standardPath(name: name) }
            #expect(error?.code == .invalidName)
        }
    }

    @Test func errorCodesAreMatchableInCatch() throws {
        do {
            _ = try DefaultsStore(path: directory.path)
            Issue.record("opening a directory must throw")
        } catch let error as DefaultsError where error.code == .isDirectory {
            #expect(error.path == directory.path)
        }
    }
}

@Suite("Files are private", .offThePool, .requiresSQLiteShell)
struct FilePermissionTests {
    @Test func databaseWalAndShmAreMode0600() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "secret"
        #expect(try permissions(directory.database) == 0o600)
        #expect(try permissions(directory.database + "-wal") == 0o600)
        #expect(try permissions(directory.database + "-shm") == 0o600)
    }

    @Test func standardLocationFollowsXDGConfigHome() throws {
        let path = try DefaultsStore.standardPath(name: "myapp")
        let xdg = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
        if let xdg, xdg.hasPrefix("/") {
            #expect(path == xdg + "/myapp/defaults.sqlite")
        } else {
            #expect(path.hasSuffix("/.config/myapp/defaults.sqlite"))
        }
    }
}
