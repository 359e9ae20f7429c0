import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let count = DefaultsKey<Int>("count", default: 0)
private let marker = DefaultsKey<String?>("marker")

/// The change feed at its edges: a file restored from an older backup, a file replaced, the
/// fleet's rows, a large import, and the history pruned while a feed reads.
@Suite("Change feed: edges", .offThePool, .requiresSQLiteShell)
struct ChangeFeedEdgeTests {
    @Test("a backup restored under a feed that was past its newest change ends the feed with .historyRewound")
    func restoreOfAnOlderFileRewinds() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        store[count] = 1
        let backup = temporary.directory + "/backup.sqlite"
        try await sqlite3(temporary.path, ".backup '\(backup)'")
        for value in 2...5 { store[count] = value }
        var iterator = store.changes(since: try await store.newestSequence()).makeAsyncIterator()
        try await sqlite3(temporary.path, ".restore '\(backup)'")
        // The feed was at entry 5 of a history that now ends at 1: it cannot know what it saw
        // that the file no longer holds, so it stops, named.
        do {
            while let change = try await iterator.next() {
                Issue.record("a change after the restore: \(change)")
            }
            Issue.record("the feed ended without an error")
        } catch let error as DefaultsError {
            #expect(error.code == .historyRewound)
        }
    }

    @Test func anImportOfTenThousandKeysIsTenThousandChangesInOrder() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let start = try await store.newestSequence()
        // One statement: the shell compiles the schema's triggers for every statement it prepares
        // (about 2 ms each), so 10,000 INSERTs would take 20 seconds.
        try await sqlite3(temporary.path, """
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
            INSERT INTO defaults(key, value) SELECT 'import.' || i, i FROM n;
            """)
        var seen: [String] = []
        for try await change in store.changes(since: start, prefix: "import.") {
            seen.append(change.key)
            if seen.count == 10_000 { break }
        }
        #expect(seen == (0..<10_000).map { "import.\($0)" })
    }

    @Test("the history pruned while a slow feed reads: it ends with .historyCompacted, never skipping")
    func prunedWhileReading() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try await store.setHistoryRetention(100)
        let start = try await store.newestSequence()
        store[count] = 1
        var iterator = store.changes(since: start).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.value == .value(.integer(1)))
        // While the consumer holds its place, 1,500 more changes; the prune drops the oldest.
        for value in 2...1_500 { store[count] = value }
        var last = first?.sequence ?? start
        do {
            while let change = try await iterator.next() {
                #expect(change.sequence == last + 1, "a change was skipped")
                last = change.sequence
                if last >= (try await store.newestSequence()) { break }
            }
        } catch let error as DefaultsError {
            #expect(error.code == .historyCompacted)
            #expect((error.oldestKeptSequence ?? 0) > last + 1)
        }
    }

    @Test func aFileReplacedUnderAFeedEndsItWithTheReplacement() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        store[count] = 1
        var iterator = store.changes(since: try await store.newestSequence()).makeAsyncIterator()
        let other = temporary.directory + "/other.sqlite"
        let replacement = try DefaultsStore(path: other)
        replacement[count] = 9
        try replacement.close()
        try FileManager.default.removeItem(atPath: temporary.path)
        try FileManager.default.moveItem(atPath: other, toPath: temporary.path)
        try await eventually(timeout: .seconds(60)) { store.lastReportedError?.code == .databaseReplaced }
        store[count] = 2   // fails (reported), and wakes nobody with a change
        do {
            let change = try await iterator.next()
            #expect(change == nil, "a change from another file: \(String(describing: change))")
        } catch let error as DefaultsError {
            #expect(error.code == .databaseReplaced)
        }
    }
}
