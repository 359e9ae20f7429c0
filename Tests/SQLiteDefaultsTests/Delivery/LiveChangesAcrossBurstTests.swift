import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let marker = DefaultsKey<Int>("zz.marker", default: 0)

/// A live `changes()` consumer never stops for the history (issue 46, finding 51): when another
/// process commits more changes in one transaction than the history keeps, and a store prunes
/// them before this one reads the log, the store compares the whole table instead, and its
/// consumers hear every key that changed, or are told how many they missed, and go on.
@Suite("changes() across a burst the history cannot keep", .offThePool, .requiresSQLiteShell)
struct LiveChangesAcrossBurstTests {
    @Test("a live consumer behind a 20,000-key import hears every key or is told how many it missed, then the next write",
          .timeLimit(.minutes(3)))
    func aLiveConsumerFollowsPastAPrunedImport() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try await store.set(1, for: marker)
        let stream = store.changes()
        let path = temporary.path
        _ = try await sqlite3(path, prunedImportSQL())  // 20,000 keys, the log pruned to 10,000 in the same transaction
        // After the import, from this store: once it is read, everything before it was delivered.
        try await store.set(2, for: marker)

        var iterator = stream.makeAsyncIterator()
        var received = 0
        var missed = 0
        var heardMarker = false
        var importKeys = Set<String>()
        while let change = await iterator.next() {
            if let gap = change.missedBefore {
                missed += gap.count
                // Found by comparing the table, not read from the log: no history position.
                #expect(gap.resumeAfter == nil, "the pruned burst has no position to resume after")
            }
            received += 1
            if change.key.hasPrefix("import.") { importKeys.insert(change.key) }
            if change.key == marker.name {
                heardMarker = true
                break
            }
        }
        #expect(heardMarker, "the stream ended instead of following past the burst")
        // Every key of the import was either delivered or counted as missed, and the marker.
        #expect(received + missed == 20_001, "received \(received), missed \(missed)")
        #expect(importKeys.count == received - 1, "a key of the import was delivered twice")
        #expect(store[DefaultsKey<Int>("import.20000", default: 0)] == 20_000)

        // The same sequence keeps following: a later write from another connection is heard.
        _ = try await sqlite3(path, "INSERT INTO defaults(key, value) VALUES ('after.burst', 1)")
        let next = await iterator.next()
        #expect(next?.key == "after.burst")
        #expect(next?.missedBefore == nil)
    }
}
