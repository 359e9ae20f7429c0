import Foundation
import SQLiteDefaults
import Synchronization

extension Workloads {
    /// `try await store.set(…)` in a loop from one task: what the hop to the store's thread and
    /// back costs beside the synchronous `set` (``setInt(_:configuration:label:)``), on the same
    /// kind of file with the same values. The measuring thread waits for the task (it is not a
    /// pool thread).
    ///
    /// With `externalChangeDetection` `.off` (a diagnosis row): the hop alone, without the
    /// monitor thread that each commit wakes competing for the two cores.
    public static func setIntAsync(configuration: DefaultsStore.Configuration = .init(), label: String = "SQLiteDefaults, async") throws -> Workload {
        let fixture = try StoreFixture("set-async", configuration: configuration)
        let store = fixture.store, key = BenchKeys.int
        let state = AsyncLoopState()
        return Workload("set Int · \(label)", keep: [fixture]) { count in
            try state.run(count) { start in
                for value in start..<(start + count) { try await store.set(value + 1, for: key) }
            }
        }
    }
}

extension Workloads {
    /// ``setIntAsync(configuration:label:)`` with the external monitor off (diagnosis).
    public static func setIntAsyncWithoutMonitor() throws -> Workload {
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .off
        return try setIntAsync(configuration: configuration, label: "SQLiteDefaults, async, no external monitor")
    }

    /// `try await store.set(…)` from `tasks` tasks at once, per set: what a server pays when its
    /// handlers write concurrently (the shape the async API is for). The store's thread takes
    /// the queued calls back to back, so the hops to it and back overlap with the writes.
    public static func setIntAsyncConcurrent(tasks: Int = 8) throws -> Workload {
        let fixture = try StoreFixture("set-async-concurrent")
        let store = fixture.store, key = BenchKeys.int
        let state = AsyncLoopState()
        return Workload("set Int · SQLiteDefaults, async, \(tasks) tasks", keep: [fixture]) { count in
            try state.run(count) { start in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for task in 0..<tasks {
                        group.addTask {
                            // Every value differs, so each set writes.
                            for value in stride(from: start + task, to: start + count, by: tasks) {
                                try await store.set(value + 1, for: key)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    /// The floor under one caller's async set: a task suspends, a thread of its own (asleep,
    /// like the store's between calls) is woken to resume it, and the task goes on on the
    /// cooperative pool. The same two wake-ups as the store's hop, with no SQLite and no job
    /// bookkeeping.
    public static func threadRoundTrip() -> Workload {
        let thread = RoundTripThread()
        return Workload("round trip to a thread and back · floor", keep: [thread], cleanup: { thread.stop() }) { count in
            let done = DispatchSemaphore(value: 0)
            Task {
                for _ in 0..<count {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        thread.submit { continuation.resume() }
                    }
                }
                done.signal()
            }
            done.wait()
        }
    }
}

/// A thread that runs what it is given, sleeping on a semaphore between (as the store's does).
private final class RoundTripThread: Sendable {
    private let pending = Mutex<(work: [@Sendable () -> Void], stopped: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in loop() }
        thread.name = "round trip floor"
        thread.start()
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.work.append(work) }
        wake.signal()
    }

    func stop() {
        pending.withLock { $0.stopped = true }
        wake.signal()
    }

    private func loop() {
        while true {
            wake.wait()
            let (work, stopped) = pending.withLock { state in
                defer { state.work.removeAll(keepingCapacity: true) }
                return (state.work, state.stopped)
            }
            for item in work { item() }
            if stopped { return }
        }
    }
}

/// What the async loop's runs share: the next value, and a failure to rethrow on the measuring thread.
private final class AsyncLoopState: Sendable {
    let counter = Atomic<Int>(0)
    let failure = Mutex<(any Error)?>(nil)

    /// Runs `body` (given the first value of this run's `count`) in a task, and waits for it on
    /// the measuring thread (not a pool thread); rethrows what it threw.
    func run(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let start = counter.add(count, ordering: .relaxed).newValue - count
        Task {
            do {
                try await body(start)
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
