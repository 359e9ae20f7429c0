import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let timeout = DefaultsKey<Int>("timeout", default: 30)
private let retries = DefaultsKey<Int>("retries", default: 3)

/// Who and why: a write names an actor and a reason, the history keeps both with the entry,
/// observers receive both, and a raw SQL writer stays `sql` with neither.
@Suite("Attribution: actor and reason", .offThePool, .requiresSQLiteShell)
struct AttributionTests {
    @Test func aTransactionsActorAndReasonAreInTheHistoryOfEveryKeyItWrote() throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let reason = "INC-4711: upstream is slow\nsecond line <b>markup</b> \"quoted\""
        try store.transaction(actor: "alice", reason: reason) { tx in
            tx[timeout] = 45
            tx[retries] = 5
        }
        store[timeout] = 50    // no attribution: the process only
        let entries = try store.history(keys: ["timeout", "retries"], limit: 10)
        #expect(entries.map(\.key) == ["timeout", "retries", "timeout"])
        #expect(entries[0].writer.actor == nil && entries[0].writer.reason == nil)
        #expect(entries[0].writer.kind == .library && entries[0].writer.pid == getpid())
        for entry in entries.dropFirst() {
            #expect(entry.writer.actor == "alice")
            #expect(entry.writer.reason == reason)
            #expect(entry.writer.pid == getpid(), "the process is still named beside the actor")
        }
    }

    @Test func aSingleWriteAndARemovalCarryTheirAttribution() throws {
        let store = try DefaultsStore.inMemory()
        try store.set(45, for: timeout, actor: "deploy-bot", reason: "rollout 12")
        try store.remove(timeout, actor: "bob", reason: nil)
        let entries = try store.history(for: timeout, limit: 2)
        #expect(entries[0].isRemoved && entries[0].writer.actor == "bob" && entries[0].writer.reason == nil)
        #expect(entries[1].writer.actor == "deploy-bot" && entries[1].writer.reason == "rollout 12")
    }

    @Test func observersHearTheActorAndReasonAndTheNextWriteIsPlainAgain() async throws {
        let store = try DefaultsStore.inMemory()
        let changes = DefaultsChangeCollector(store.changes(timeout))
        try await store.set(1, for: timeout, actor: "alice", reason: "why")
        store[timeout] = 2
        let first = try await changes.next()
        let second = try await changes.next()
        #expect(first.writer?.actor == "alice" && first.writer?.reason == "why")
        #expect(second.writer?.actor == nil && second.writer?.reason == nil)
    }

    @Test func anotherProcessSeesTheActorInTheExternalChange() async throws {
        let temporary = try TemporaryDefaultsStore()
        let other = try DefaultsStore(path: temporary.path)
        let changes = DefaultsChangeCollector(other.changes(timeout))
        try await temporary.store.set(7, for: timeout, actor: "carol", reason: "ticket 9")
        let change = try await changes.next()
        #expect(change.origin == .external)
        #expect(change.writer?.actor == "carol" && change.writer?.reason == "ticket 9")
    }

    @Test func aSQLWriterHasNoActor() async throws {
        let temporary = try TemporaryDefaultsStore()
        try await sqlite3(temporary.path, "INSERT INTO defaults VALUES ('timeout', 99)")
        let entry = try await #require(try temporary.store.history(for: timeout, limit: 1).first)
        #expect(entry.writer == DefaultsWriter(kind: .sql))
    }

    @Test func aNestedTransactionKeepsTheOutermostAttribution() throws {
        let store = try DefaultsStore.inMemory()
        try store.transaction(actor: "outer", reason: "first") { _ in
            try store.transaction(actor: "inner", reason: "second") { tx in tx[timeout] = 1 }
            store[retries] = 1
        }
        for entry in try store.history(keys: nil, limit: 10) {
            #expect(entry.writer.actor == "outer" && entry.writer.reason == "first")
        }
    }

    @Test func aTenKilobyteReasonIsKeptWholeAndAnOversizedOneIsRefusedWithNothingWritten() throws {
        let store = try DefaultsStore.inMemory()
        let long = String(repeating: "why? ", count: 2_048)  // 10 KiB
        try store.set(1, for: timeout, actor: "alice", reason: long)
        #expect(try store.history(for: timeout, limit: 1).first?.writer.reason == long)
        let tooLongReason = #expect(throws: DefaultsError.self) {
            try store.set(2, for: timeout, actor: "alice", reason: String(repeating: "x", count: 16_385))
        }
        #expect(tooLongReason?.code == .invalidAttribution)
        let tooLongActor = #expect(throws: DefaultsError.self) {
            try store.set(2, for: timeout, actor: String(repeating: "a", count: 257))
        }
        #expect(tooLongActor?.code == .invalidAttribution)
        #expect(store[timeout] == 1)
    }

    @Test func aFailedAttributedTransactionLeavesTheNextWritePlain() throws {
        let store = try DefaultsStore.inMemory()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.transaction(actor: "alice", reason: "rolled back") { tx in
                tx[timeout] = 1
                throw Stop()
            }
        }
        store[timeout] = 2
        let entries = try store.history(for: timeout, limit: 10)
        #expect(entries.count == 1 && entries[0].writer.actor == nil)
    }
}
