import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Synchronization
import Testing

/// Finding 10 of the engine's second edition, where the behaviour has no public face: the
/// safety poll's deadline, and the cache's tombstones.
@Suite("Engine internals")
struct EngineInternalsTests {
    @Test("finding 10: unrelated events in the directory never postpone a file's safety poll")
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
        let start = ContinuousClock.now
        let deadline = start + .seconds(30)
        while polls.withLock({ $0 }) < 5, ContinuousClock.now < deadline {
            _ = FileManager.default.createFile(atPath: noise, contents: Data([1]))
            try? FileManager.default.removeItem(atPath: noise)
            try await Task.sleep(for: .milliseconds(10))
        }
        let count = polls.withLock { $0 }
        #expect(count >= 5, "safety polls in \(ContinuousClock.now - start) of unrelated events: \(count)")
    }

    @Test("safety polls of many files are spread out (one per interval per file at most, one per spacing in all), and come back to full rate when the others go",
          .disabled(if: monitorForcedToPoll, "SQLITEDEFAULTS_MONITOR=polling: safety polls are for files watched through inotify; polled files are looked at every 100 ms"))
    func safetyPollsOfManyFilesAreSpreadOut() async throws {
        let directory = try TemporaryDirectory()
        // An interval no other test uses, so only these files share its timeline.
        let interval = Duration.milliseconds(97)
        let polls = Locked<[Int: Int]>([:])
        func register(_ index: Int) -> MonitorRegistration {
            let path = directory.path + "/f\(index).sqlite"
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileMonitor.shared.register(realPath: path, mode: .fileEvents, safetyPoll: interval, logger: .init(label: "test")) { event in
                if case .safetyPoll = event { polls.withLock { $0[index, default: 0] += 1 } }
                return .nothingNew
            }
        }
        var registrations = (0..<50).map(register)
        // Files inotify cannot watch are polled every 100 ms on their own, by design.
        let watched = registrations.allSatisfy { !$0.isPolling }
        try #require(watched, "inotify refused the test's directory")
        // At least three polls in all: wait for them (the monitor thread may be slow to get a
        // core while the whole suite runs), then count against the time that really passed.
        let start = ContinuousClock.now
        await waitUntil { polls.withLock { $0.values.reduce(0, +) } >= 3 }
        try await Task.sleep(for: .milliseconds(1_500))
        let crowded = polls.withLock { $0.values.reduce(0, +) }
        let intervals = Int((ContinuousClock.now - start) / interval)
        // Every file at every interval would be 50 polls per interval; one file per interval is 1.
        #expect(crowded >= 3 && crowded <= intervals + 10, "safety polls of 50 files in \(intervals) intervals: \(crowded)")

        for registration in registrations.dropFirst() { registration.cancel() }
        registrations = [registrations[0]]
        try await Task.sleep(for: .milliseconds(50 * 97 + 200))  // the first file's slot may lie 50 spacings ahead
        polls.withLock { $0 = [:] }
        // Alone, the file is polled every 97 ms: five polls take about half a second. Still
        // spaced as one of 50 they would take 24 s; 12 s tells the two apart with room to spare.
        let aloneStart = ContinuousClock.now
        await waitUntil { polls.withLock { $0[0] ?? 0 } >= 5 }
        let took = ContinuousClock.now - aloneStart
        #expect(took < .seconds(12), "five safety polls of the one file left took \(took)")
        registrations[0].cancel()
    }

    @Test("finding 10: tombstones of removed keys are bounded; observed keys keep theirs")
    func tombstonesAreBounded() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let watched = DefaultsKey<Int>("watched", default: 0)
        let heard = Collected<Int>()
        let token = store.observe(watched) { heard.append($0.newValue) }
        store[watched] = 1
        try store.remove(watched)
        for index in 0..<(ValueCache.tombstoneLimit * 3) {
            let key = DefaultsKey<Int>("gone.\(index)", default: 0)
            store[key] = index
            try store.remove(key)
        }
        #expect(store.core.cache.tombstoneCount <= ValueCache.tombstoneLimit + 1)
        // The observed key's last-seen value (no row) survived the pruning: writing the
        // default-less removal again announces nothing new, a new value announces once.
        try store.remove(watched)
        store[watched] = 2
        // Observers are called on the delivery queue: wait for the three calls, then compare.
        _ = heard.wait(count: 3)
        #expect(heard.all == [1, 0, 2])
        withExtendedLifetime(token) {}
    }
}
