import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let count = DefaultsKey<Int>("count", default: 0)
private let marker = DefaultsKey<String?>("marker")

/// `changes(since:)`: every committed change after a position, in order, never coalesced, then
/// live; an explicit error when the position is gone or ahead of the file.
@Suite("Change feed", .offThePool, .requiresSQLiteShell)
struct ChangeFeedTests {
    /// Reads `feed` until `stop` holds for an element (included), with a generous deadline.
    private func collect(_ feed: DefaultsChangeFeed, until stop: @escaping @Sendable (DefaultsHistoryEntry<SQLiteValue>) -> Bool)
        async throws -> [DefaultsHistoryEntry<SQLiteValue>] {
        try await withThrowingTaskGroup(of: [DefaultsHistoryEntry<SQLiteValue>]?.self) { group in
            group.addTask {
                var seen: [DefaultsHistoryEntry<SQLiteValue>] = []
                for try await change in feed {
                    seen.append(change)
                    if stop(change) { return seen }
                }
                return seen
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return try #require(first, "the feed did not deliver within 60 seconds")
        }
    }

    @Test func everyChangeInOrderNeverCoalescedThenLive() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let start = try await store.newestSequence()
        for value in 1...200 { store[count] = value }     // nobody reading: the history is the buffer
        let feed = store.changes(since: start, keys: ["count", "marker"])
        let live = Task { try await collect(feed) { $0.key == "marker" } }
        try await sqlite3(temporary.path, "UPDATE defaults SET value = 201 WHERE key = 'count'")
        try await eventually(timeout: .seconds(60)) { try store.newestSequence() > start + 200 }
        store[marker] = "end"
        let seen = try await live.value
        #expect(seen.dropLast().map(\.value) == (1...201).map { .value(.integer(Int64($0))) })
        #expect(seen.map(\.sequence) == seen.map(\.sequence).sorted())
        #expect(Set(seen.map(\.sequence)).count == seen.count)
        #expect(seen[200].writer.kind == .sql)
        #expect(seen[0].writer.kind == .library)
    }

    @Test func sinceTheNewestGivesNothingThenWhatCommits() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        store[count] = 1
        let feed = store.changes(since: try await store.newestSequence())
        let task = Task { try await collect(feed) { $0.key == "marker" } }
        store[count] = 2
        store[marker] = "end"
        let seen = try await task.value
        #expect(seen.map(\.key) == ["count", "marker"])
        #expect(seen[0].value == .value(.integer(2)))
    }

    @Test("keys and prefix filter by bytes: feature. is not featureless")
    func prefixAndKeys() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let start = try await store.newestSequence()
        for name in ["feature.a", "featureless", "feature", "other", "feature.b"] {
            store[DefaultsKey<Int>(name, default: 0)] = 1
        }
        store[marker] = "end"
        let dotted = try await collect(store.changes(since: start, prefix: "feature.")) { $0.key == "feature.b" }
        #expect(dotted.map(\.key) == ["feature.a", "feature.b"])
        let bare = try await collect(store.changes(since: start, prefix: "feature")) { $0.key == "feature.b" }
        #expect(bare.map(\.key) == ["feature.a", "featureless", "feature", "feature.b"])
        let named = try await collect(store.changes(since: start, keys: ["other", "marker"])) { $0.key == "marker" }
        #expect(named.map(\.key) == ["other", "marker"])
    }

    @Test func aRenameIsTwoEntriesARollbackAndTheSameValueNone() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let old = DefaultsKey<Int>("old", default: 0), new = DefaultsKey<Int>("new", default: 0)
        store[old] = 5
        let start = try await store.newestSequence()
        try await store.transaction { tx in
            try tx.remove(old)
            tx[new] = 5
        }
        struct Stop: Error {}
        _ = try? await store.transaction { tx -> Void in
            tx[count] = 99
            throw Stop()
        }
        store[new] = 5                // the value it holds: no change
        try await store.removeAll()
        store[marker] = "end"
        let seen = try await collect(store.changes(since: start)) { $0.key == "marker" }
        #expect(seen.map(\.key) == ["old", "new", "new", "marker"])
        #expect(seen.map(\.isRemoved) == [true, false, true, false])
    }

    @Test func aPositionThePruneRemovedEndsTheFeedNamingTheOldestKept() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try await store.setHistoryRetention(100)
        for value in 1...1_500 { store[count] = value }
        var iterator = store.changes(since: 1).makeAsyncIterator()
        do {
            _ = try await iterator.next()
            Issue.record("the feed skipped pruned changes")
        } catch let error as DefaultsError {
            #expect(error.code == .historyCompacted)
            let oldest = try #require(error.oldestKeptSequence)
            #expect(oldest > 2)
            // From just before the oldest kept, it reads again.
            var resumed = store.changes(since: oldest - 1).makeAsyncIterator()
            #expect(try await resumed.next()?.sequence == oldest)
        }
    }

    @Test func aPositionAheadOfTheFileIsRefused() async throws {
        let temporary = try TemporaryDefaultsStore()
        temporary.store[count] = 1
        let newest = try await temporary.store.newestSequence()
        var iterator = temporary.store.changes(since: newest + 5).makeAsyncIterator()
        let error = await #expect(throws: DefaultsError.self) { _ = try await iterator.next() }
        #expect(error?.code == .historyRewound)
    }

    @Test func twoFeedsOnOneStoreEachGetEverything() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let start = try await store.newestSequence()
        let first = Task { try await collect(store.changes(since: start)) { $0.key == "marker" } }
        let second = Task { try await collect(store.changes(since: start)) { $0.key == "marker" } }
        for value in 1...50 { store[count] = value }
        store[marker] = "end"
        let (a, b) = try await (first.value, second.value)
        #expect(a.count == 51 && a.map(\.sequence) == b.map(\.sequence))
    }

    @Test func closingTheStoreEndsTheFeed() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = try DefaultsStore(path: temporary.path)
        let feed = store.changes(since: try await store.newestSequence())
        let task = Task { () -> Int in
            var seen = 0
            for try await _ in feed { seen += 1 }
            return seen
        }
        store[count] = 1
        try await eventually(timeout: .seconds(60)) { try temporary.store.newestSequence() > 0 }
        try store.close()
        let seen = try await task.value
        #expect(seen <= 1)
    }
}
