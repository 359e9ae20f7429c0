import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Files that are not the store's to change: another program's database, files other users
/// could have written, files opened only to be read, paths that cannot hold a database.
@Suite("Foreign files", .offThePool, .requiresSQLiteShell)
struct ForeignFileTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    private let name = DefaultsKey<String>("name", default: "Guest")

    private func expectError(_ code: DefaultsError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                             _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as DefaultsError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected DefaultsError \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Every byte of the file, and whether a -wal or -shm appeared.
    private func snapshot(_ path: String) -> [Data?] {
        [fileBytes(path), fileBytes(path + "-wal"), fileBytes(path + "-shm")]
    }

    // MARK: Another program's database

    @Test("another program's database is refused and left byte for byte as it was")
    func foreignDatabaseRefused() async throws {
        let path = directory.path + "/app.db"
        try await sqlite3(path, "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ada');")
        let before = snapshot(path)
        expectError(.foreignDatabase) { _ = try DefaultsStore(path: path) }
        var readOnly = DefaultsStore.Configuration()
        readOnly.isReadOnly = true
        expectError(.foreignDatabase) { _ = try DefaultsStore(path: path, configuration: readOnly) }
        #expect(snapshot(path) == before)
        #expect(try await sqlite3(path, "PRAGMA journal_mode") == "delete")
    }

    @Test("a table named defaults of another shape is refused, even when other tables are allowed")
    func defaultsTableOfAnotherShape() async throws {
        let path = directory.path + "/app.db"
        try await sqlite3(path, "CREATE TABLE defaults(id INTEGER PRIMARY KEY, setting TEXT);")
        let before = snapshot(path)
        var configuration = DefaultsStore.Configuration()
        configuration.allowsOtherTables = true
        expectError(.foreignDatabase) { _ = try DefaultsStore(path: path, configuration: configuration) }
        #expect(snapshot(path) == before)
    }

    @Test("with allowsOtherTables the store lives beside the app's tables")
    func otherTablesAllowed() async throws {
        let path = directory.path + "/app.db"
        try await sqlite3(path, "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ada');")
        var configuration = DefaultsStore.Configuration()
        configuration.allowsOtherTables = true
        do {
            let store = try DefaultsStore(path: path, configuration: configuration)
            try await store.set("Ada", for: name)
        }
        #expect(try await sqlite3(path, "SELECT name FROM users") == "ada")
        // Once the file holds the store's identity, it opens without the option.
        let store = try DefaultsStore(path: path)
        #expect(store[name] == "Ada")
    }

    @Test("the store's own file with an app table added still opens")
    func ownFilesStillOpen() async throws {
        let own = directory.path + "/own.sqlite"
        try await DefaultsStore(path: own).set("Eve", for: name)
        try await sqlite3(own, "CREATE TABLE audit(at TEXT);")
        #expect(try DefaultsStore(path: own)[name] == "Eve")
    }

    // MARK: Permissions

    @Test("a database, -wal or -shm that others can write is refused", arguments: ["", "-wal", "-shm"])
    func writableByOthers(suffix: String) throws {
        let path = directory.database
        do {
            let holder = try DefaultsStore(path: path, configuration: quietConfigurationForTests())
            try holder.set("secret", for: name)
            // Copies of the files while they exist (the last close removes -wal and -shm).
            for file in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + file) {
                try FileManager.default.copyItem(atPath: path + file, toPath: directory.path + "/copy.sqlite" + file)
            }
        }
        let copy = directory.path + "/copy.sqlite"
        try #require(FileManager.default.fileExists(atPath: copy + suffix), "no \(suffix) file to test")
        #expect(chmod(copy + suffix, 0o666) == 0)
        expectError(.unsafePermissions) { _ = try DefaultsStore(path: copy) }
        #expect(chmod(copy + suffix, 0o620) == 0)
        expectError(.unsafePermissions) { _ = try DefaultsStore(path: copy) }
        var configuration = DefaultsStore.Configuration()
        configuration.allowsUnsafePermissions = true
        #expect(try DefaultsStore(path: copy, configuration: configuration)[name] == "secret")
    }

    @Test("a database owned by another user who is not root is refused", .enabled(if: geteuid() == 0, "needs root to give a file away"))
    func ownedByAnotherUser() throws {
        let path = directory.database
        try DefaultsStore(path: path).set("x", for: name)
        #expect(chown(path, 4242, 4242) == 0)
        do {
            _ = try DefaultsStore(path: path)
            Issue.record("opened a file owned by user 4242")
        } catch let error as DefaultsError {
            #expect(error.code == .unsafePermissions)
            #expect(error.message.contains(path) && error.message.contains("4242"), "\(error)")
        }
    }

    @Test("files the store creates are 0600 in 0700 directories")
    func createdPrivate() throws {
        let path = directory.path + "/new/dir/defaults.sqlite"
        let store = try DefaultsStore(path: path)
        try store.set("x", for: name)
        #expect(try permissions(path) == 0o600)
        #expect(try permissions(path + "-wal") == 0o600)
        #expect(try permissions(directory.path + "/new/dir") == 0o700)
        #expect(try permissions(directory.path + "/new") == 0o700)
    }

    // MARK: Read-only

    @Test("a read-only store creates, migrates and converts nothing")
    func readOnlyTouchesNothing() async throws {
        var configuration = DefaultsStore.Configuration()
        configuration.isReadOnly = true
        // Missing: refused, nothing created.
        let missing = directory.path + "/missing/defaults.sqlite"
        expectError(.cannotOpen) { _ = try DefaultsStore(path: missing, configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/missing"))

        // An older schema in rollback-journal mode: read as it is.
        let old = directory.path + "/old.sqlite"
        try await sqlite3(old, "CREATE TABLE defaults(key TEXT NOT NULL UNIQUE, value); INSERT INTO defaults VALUES ('name', 'Old'); PRAGMA user_version = 1;")
        let before = snapshot(old)
        do {
            let store = try DefaultsStore(path: old, configuration: configuration)
            #expect(store[name] == "Old")
            await #expect(try store.keys() == ["name"])
            expectError(.readOnly) { try store.set("New", for: name) }
            expectError(.readOnly) { try store.remove(name) }
        }
        #expect(snapshot(old) == before)
        #expect(try await sqlite3(old, "PRAGMA user_version") == "1")

        // An empty SQLite file: no keys, and it stays empty.
        let empty = directory.path + "/empty.sqlite"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data(), attributes: [.posixPermissions: 0o600]))
        do {
            let store = try DefaultsStore(path: empty, configuration: configuration)
            await #expect(try store.keys().isEmpty)
            #expect(store[name] == "Guest")
            expectError(.readOnly) { try store.set("x", for: name) }
        }
        #expect(fileBytes(empty)?.isEmpty == true)
    }

    @Test("a read-only store sees other writers' commits")
    func readOnlySeesCommits() throws {
        let path = directory.database
        let writer = try DefaultsStore(path: path)
        try writer.set("one", for: name)
        var configuration = DefaultsStore.Configuration()
        configuration.isReadOnly = true
        let reader = try DefaultsStore(path: path, configuration: configuration)
        #expect(reader[name] == "one")
        try writer.set("two", for: name)
        #expect(reader[name] == "two")
    }

    // MARK: Paths

    @Test("a parent path that is a file is named in the error")
    func parentIsAFile() throws {
        let file = directory.path + "/plain"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        do {
            _ = try DefaultsStore(path: file + "/sub/defaults.sqlite")
            Issue.record("opened a database under a file")
        } catch let error as DefaultsError {
            #expect(error.code == .cannotCreateDirectory)
            #expect(error.message.contains("\(file) is a file, not a directory"), "\(error)")
            #expect(!error.message.contains("NSCocoaErrorDomain"), "\(error)")
        }
    }

    private func quietConfigurationForTests() -> DefaultsStore.Configuration {
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .off
        return configuration
    }
}
