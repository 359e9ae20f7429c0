import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let counter = DefaultsKey<Int>("counter", default: 0)

/// A value stream holds a bounded number of unread values and always keeps the newest
/// (issue 44, "Slow consumers, bounded").
@Suite("updates(_:) is bounded", .offThePool)
struct BoundedUpdatesTests {
    @Test("a consumer that never reads holds at most updatesBufferLimit values; reading then ends on the newest")
    func aConsumerThatStopsReadingCostsABoundedNumber() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let limit = DefaultsStore.updatesBufferLimit
        let stream = store.updates(counter, initial: false)
        let writes = limit * 3
        for value in 1...writes { store[counter] = value }
        // A marker after the burst: once it is read, everything before it was delivered.
        store[counter] = -1
        var received: [Int] = []
        for await value in stream {
            received.append(value)
            if value == -1 { break }
        }
        #expect(received.count <= limit, "held \(received.count) values, more than \(limit)")
        #expect(received.last == -1, "the newest value is kept")
        #expect(received.dropLast() == ArraySlice(writes - received.count + 2...writes), "the newest unread values, in order")
    }
}
