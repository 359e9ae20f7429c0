import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let timeout = DefaultsKey<Int>("timeout", default: 30)

/// A key's version is the sequence of its newest change, from any writer; a conditional write
/// checks it in the transaction that writes, and writes nothing when the key moved on.
@Suite("Versions and conditional writes", .offThePool, .requiresSQLiteShell)
struct VersionTests {
    @Test func theVersionIsTheNewestChangesSequenceFromAnyWriter() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        #expect(try store.version(of: "timeout") == 0, "never written")
        store[timeout] = 1
        let first = try store.version(of: timeout)
        await #expect(first == (try store.history(for: timeout, limit: 1).first?.sequence))
        store[timeout] = 1
        #expect(try store.version(of: timeout) == first, "writing the value it holds is no change")
        try await sqlite3(temporary.path, "UPDATE defaults SET value = 2 WHERE key = 'timeout'")
        let second = try store.version(of: timeout)
        #expect(second > first)
        try await store.remove(timeout)
        let removed = try store.version(of: timeout)
        #expect(removed > second, "a removal is a change too")
        #expect(try store.versions()["timeout"] == removed)
    }

    @Test func aConditionalWriteSucceedsAtTheVersionItSawAndFailsWhenTheKeyMovedOn() throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        store[timeout] = 1
        let seen = try store.version(of: timeout)
        try store.transaction(actor: "alice") { tx in
            try tx.requireVersion(seen, of: "timeout")
            tx[timeout] = 2
        }
        // Bob saw `seen` too, and saves after Alice.
        do {
            try store.transaction(actor: "bob") { tx in
                try tx.requireVersion(seen, of: "timeout")
                tx[timeout] = 3
            }
            Issue.record("bob's stale write went through")
        } catch let error as DefaultsError {
            #expect(error.code == .versionConflict)
            #expect(error.currentVersion == (try store.version(of: timeout)))
            #expect(error.key == "timeout")
        }
        #expect(store[timeout] == 2, "nothing was written")
    }

    @Test func versionZeroCreatesOnlyWhenNobodyDidMeanwhile() throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try store.transaction { tx in
            try tx.requireVersion(0, of: "timeout")
            tx[timeout] = 1
        }
        let refused = #expect(throws: DefaultsError.self) {
            try store.transaction { tx in
                try tx.requireVersion(0, of: "timeout")
                tx[timeout] = 9
            }
        }
        #expect(refused?.code == .versionConflict)
        #expect(store[timeout] == 1)
    }

    @Test func anotherProcessesWriteBetweenReadAndSaveIsAConflict() throws {
        let temporary = try TemporaryDefaultsStore()
        temporary.store[timeout] = 1
        let seen = try temporary.store.version(of: timeout)
        let other = try DefaultsStore(path: temporary.path)
        other[timeout] = 5
        let refused = #expect(throws: DefaultsError.self) {
            try temporary.store.transaction { tx in
                try tx.requireVersion(seen, of: "timeout")
                tx[timeout] = 2
            }
        }
        #expect(refused?.code == .versionConflict)
        #expect(try DefaultsStore(path: temporary.path)[timeout] == 5)
    }
}
