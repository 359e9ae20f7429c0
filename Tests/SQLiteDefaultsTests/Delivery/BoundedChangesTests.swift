import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Synchronization
import Testing
import TestScheduling

private let counter = DefaultsKey<Int>("counter", default: 0)
private let marker = DefaultsKey<Int>("zz.marker", default: 0)

/// A sequence of changes holds a bounded number of unread changes; a consumer that fell behind
/// is told what it missed and where the history has it (issue 44, "Slow consumers, bounded").
@Suite("changes() is bounded and says what it missed", .offThePool)
struct BoundedChangesTests {
    @Test("a consumer that never reads holds at most changesBufferLimit changes; the first it reads names the missed ones")
    func everyKeysChangesAreBounded() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let limit = DefaultsStore.changesBufferLimit
        let stream = store.changes()
        // Within the history's default length (10,000), so the missed changes are still there.
        let writes = limit + 100
        for value in 1...writes { store[counter] = value }
        // The barrier: once the marker is read, everything before it was delivered.
        store[marker] = 1
        var received: [AnyDefaultsChange] = []
        for await change in stream {
            received.append(change)
            if change.key == marker.name { break }
        }
        #expect(received.count == limit, "held \(received.count) changes, expected \(limit)")
        let missed = try #require(received.first?.missedBefore, "the first change read says what was missed")
        #expect(missed.count == writes + 1 - limit)
        #expect(received.dropFirst().allSatisfy { $0.missedBefore == nil }, "only the first change after the gap carries it")
        // The kept ones are the newest, in order.
        let kept = received.dropLast().map { change -> Int64? in
            if case .integer(let value) = change.newValue { return value }
            return nil
        }
        #expect(kept == (writes - limit + 2...writes).map { Int64($0) })
        // The history has the missed ones after `resumeAfter`: the first is the first write.
        let resumeAfter = try #require(missed.resumeAfter, "a local write's history position is known")
        var iterator = store.changes(since: resumeAfter).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.key == counter.name)
        #expect(first.value.written == .integer(1))
    }

    @Test("a typed sequence of one key is bounded the same way")
    func oneKeysChangesAreBounded() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let limit = DefaultsStore.changesBufferLimit
        let stream = store.changes(counter)
        let writes = limit + 10
        for value in 1...writes { store[counter] = value }
        store[counter] = -1
        var received: [DefaultsChange<Int>] = []
        for await change in stream {
            received.append(change)
            if change.newValue == -1 { break }
        }
        #expect(received.count == limit)
        #expect(received.first?.missedBefore?.count == writes + 1 - limit)
        #expect(received.first?.newValue == writes + 2 - limit)
        #expect(received.last?.newValue == -1)
    }

    @Test("changes from another store on the file name their history position when missed")
    func externalChangesNameWhereToResume() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let other = try temporary.openAnother()
        let limit = DefaultsStore.changesBufferLimit
        let stream = store.changes(prefix: "counter")
        // Registered after the stream's observer, so called after it for each change: when it
        // hears the last key, the stream holds everything (its consumer did not read meanwhile).
        let delivered = Mutex(false)
        let barrier = store.observe(prefix: "counter.zz") { _ in delivered.withLock { $0 = true } }
        defer { barrier.cancel() }
        let writes = limit + 20
        // One transaction: the monitor applies it in one look, one change per key, so the keys
        // must differ for each to be a change of its own.
        try await other.transaction { transaction in
            for value in 1...writes { transaction[DefaultsKey<Int>("counter.\(value)", default: 0)] = value }
        }
        other[DefaultsKey<Int>("counter.zz", default: 0)] = -1
        #expect(await waitUntil(timeout: .seconds(60)) { delivered.withLock { $0 } })
        var received: [AnyDefaultsChange] = []
        for await change in stream {
            received.append(change)
            if change.key == "counter.zz" { break }
        }
        #expect(received.count == limit)
        let missed = try #require(received.first?.missedBefore)
        #expect(missed.count == writes + 1 - limit)
        let resumeAfter = try #require(missed.resumeAfter, "an external change read from the log names its position")
        var iterator = store.changes(since: resumeAfter, prefix: "counter").makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.key == "counter.1")
    }

    @Test("a consumer that keeps up misses nothing and is never told of a gap")
    func aConsumerThatKeepsUpMissesNothing() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let stream = store.changes(counter)
        let writer = Task {
            for value in 1...200 { try await store.set(value, for: counter) }
        }
        var seen = 0
        for await change in stream {
            #expect(change.missedBefore == nil)
            seen += 1
            if change.newValue == 200 { break }
        }
        try await writer.value
        #expect(seen == 200)
    }

    // The limit is a net for a sequence that never ends, not a speed check: under
    // ThreadSanitizer, with two test bodies at a time, this body once waited most of a minute
    // for a thread (CI, 2026-12-02).
    @Test("ending the loop unregisters the sequence's observer; the store's close ends a waiting one",
          .timeLimit(.minutes(10)))
    func endingAndClosing() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        do {
            let stream = store.changes()
            store[counter] = 1
            for await _ in stream { break }
        }
        let waiting = Task {
            var count = 0
            for await _ in store.changes(counter) { count += 1 }
            return count
        }
        // Whether the waiting task registers before the close (the close ends its sequence) or
        // after it (a sequence made on a closed store ends at once), its loop ends. The probe
        // makes the first case the likely one: it hears the write the waiting task may count.
        let probe = store.changes(counter)
        store[counter] = 2
        for await _ in probe { break }
        try temporary.close()
        let heard = await waiting.value
        #expect(heard <= 1, "the sequence ended when the store closed")
    }
}
