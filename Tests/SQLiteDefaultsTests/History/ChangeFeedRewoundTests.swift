import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

/// A feed asked for a position newer than the file's newest change names the oldest change the
/// file keeps, as a compacted history does, so a consumer knows where to start again (issue 46).
@Suite("Change feed: a position ahead of the file", .offThePool)
struct ChangeFeedRewoundTests {
    @Test("historyRewound carries the oldest kept sequence; starting before it reads every kept change")
    func rewoundNamesTheOldestKept() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        for name in ["a", "b", "c"] { store[DefaultsKey<Int>(name, default: 0)] = 1 }
        let newest = try await store.newestSequence()
        var iterator = store.changes(since: newest + 996).makeAsyncIterator()
        let error = await #expect(throws: DefaultsError.self) { _ = try await iterator.next() }
        #expect(error?.code == .historyRewound)
        let oldest = try #require(error?.oldestKeptSequence)
        #expect(oldest > 0 && oldest <= newest)
        var resumed = store.changes(since: oldest - 1).makeAsyncIterator()
        #expect(try await resumed.next()?.sequence == oldest)
        #expect(error?.message.contains("the oldest it keeps is \(oldest)") == true, "\(String(describing: error))")
    }

    @Test("on a file whose history keeps no change, historyRewound names no oldest")
    func rewoundOnAnEmptyHistory() async throws {
        let temporary = try TemporaryDefaultsStore()
        var iterator = temporary.store.changes(since: 5).makeAsyncIterator()
        let error = await #expect(throws: DefaultsError.self) { _ = try await iterator.next() }
        #expect(error?.code == .historyRewound)
        #expect(error?.oldestKeptSequence == nil)
    }
}
