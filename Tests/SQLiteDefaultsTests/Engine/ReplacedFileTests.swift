import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// A database file replaced under a running store (a copy moved over it). SQLite never
/// checkpoints a moved database, so the old file's `-wal` stays beside the new one: the store
/// reports `.databaseReplaced`, refuses writes that would be lost, and leaves both files as they
/// are — the replacement's own data is intact once the stale `-wal` is moved away.
@Suite("Replaced database file", .offThePool)
struct ReplacedFileTests {
    @Test("a database moved over the open one: .databaseReplaced, writes refused, both files untouched")
    func aReplacementIsReportedAndLeftUntouched() async throws {
        let directory = try TemporaryDirectory()
        let name = DefaultsKey<String>("name", default: "")
        let other = directory.path + "/other.sqlite"
        do {
            let replacement = try DefaultsStore(path: other)
            replacement[name] = "from the replacement"
            try replacement.close()
        }
        let store = try DefaultsStore(path: directory.database)
        store[name] = "before"
        let failures = store.reportedErrors()
        let replacementBytes = try Data(contentsOf: URL(fileURLWithPath: other))
        #expect(rename(other, directory.database) == 0)
        var iterator = failures.makeAsyncIterator()
        #expect(await iterator.next()?.code == .databaseReplaced)
        let refused = #expect(throws: DefaultsError.self) { try store.set("lost?", for: name) }
        #expect(refused?.code == .databaseReplaced)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.database)) == replacementBytes)
        // Moving the stale -wal away leaves the replacement exactly as it was written.
        try? FileManager.default.removeItem(atPath: directory.database + "-wal")
        try? FileManager.default.removeItem(atPath: directory.database + "-shm")
        #expect(try DefaultsStore(path: directory.database)[name] == "from the replacement")
    }

    @Test("after a replacement, a read the cache could answer throws .databaseReplaced and contains is false")
    func aCachedReadAfterAReplacementThrows() async throws {
        let directory = try TemporaryDirectory()
        let name = DefaultsKey<String>("name", default: "default")
        let other = directory.path + "/other.sqlite"
        do {
            let replacement = try DefaultsStore(path: other)
            replacement[name] = "from the replacement"
            try replacement.close()
        }
        let store = try DefaultsStore(path: directory.database)
        try await store.set("before", for: name)
        // Read once, so the value is in the store's cache.
        #expect(try store.value(for: name) == "before")
        #expect(store.contains(name))
        let failures = store.reportedErrors()
        #expect(rename(other, directory.database) == 0)
        var iterator = failures.makeAsyncIterator()
        #expect(await iterator.next()?.code == .databaseReplaced)
        let stale = #expect(throws: DefaultsError.self) { try store.value(for: name) }
        #expect(stale?.code == .databaseReplaced)
        #expect(!store.contains(name))
        #expect(store[name] == "default")
    }
}
