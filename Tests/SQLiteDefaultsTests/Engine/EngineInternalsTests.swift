import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import SQLiteDefaultsTesting
import Synchronization
import Testing
import TestScheduling

/// Engine behaviour with no public face: the safety poll's deadline, and the cache's
/// tombstones. (How the safety polls of many files share an interval is the scheduler's, tested
/// on a fake clock in MonitorSchedulerTests; the real monitor's timing is for Benchmarks/.)
@Suite("Engine internals", .offThePool)
struct EngineInternalsTests {
    @Test("unrelated events in the directory never postpone a file's safety poll")
    func unrelatedEventsDoNotPostponeTheSafetyPoll() async throws {
        let directory = try TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: directory.database, contents: nil)
        let polls = Locked(0)
        let registration = FileMonitor.shared.register(
            realPath: directory.database, mode: .fileEvents, safetyPoll: .milliseconds(100), logger: .init(label: "test")
        ) { event in
            if case .safetyPoll = event { polls.withLock { $0 += 1 } }
            return .nothingNew
        }
        defer { registration.cancel() }
        // Another file in the same directory is created and closed every 10 ms until five polls
        // have run: each is an event on the directory watch, none concerns the database. A poll
        // that every event postponed would never run, and the generous deadline would pass.
        let noise = directory.path + "/noise"
        try await eventually(timeout: .seconds(30), pollingEvery: .milliseconds(10),
                             "five safety polls amid unrelated events (\(polls.withLock { $0 }) ran)") {
            // Pacing, not a proof of absence: one unrelated event per check.
            _ = FileManager.default.createFile(atPath: noise, contents: Data([1]))
            try? FileManager.default.removeItem(atPath: noise)
            return polls.withLock { $0 } >= 5
        }
    }

    @Test("tombstones of removed keys are bounded; observed keys keep theirs")
    func tombstonesAreBounded() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let watched = DefaultsKey<Int>("watched", default: 0)
        let heard = Collected<Int>()
        let token = store.observe(watched) { heard.append($0.newValue) }
        store[watched] = 1
        try await store.remove(watched)
        for index in 0..<(ValueCache.tombstoneLimit * 3) {
            let key = DefaultsKey<Int>("gone.\(index)", default: 0)
            store[key] = index
            try await store.remove(key)
        }
        #expect(store.core.cache.tombstoneCount <= ValueCache.tombstoneLimit + 1)
        // The observed key's last-seen value (no row) survived the pruning: writing the
        // default-less removal again announces nothing new, a new value announces once.
        try await store.remove(watched)
        store[watched] = 2
        // Observers are called on the delivery queue: wait for the three calls, then compare.
        _ = await heard.waitAsync(count: 3)
        #expect(heard.all == [1, 0, 2])
        withExtendedLifetime(token) {}
    }
}
