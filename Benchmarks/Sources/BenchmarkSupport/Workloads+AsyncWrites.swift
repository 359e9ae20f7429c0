import Foundation
import SQLiteDefaults
import Synchronization

extension Workloads {
    /// `try await store.set(…)` in a loop from one task: what the hop to the store's thread and
    /// back costs beside the synchronous `set` (``setInt(_:configuration:label:)``), on the same
    /// kind of file with the same values. The measuring thread waits for the task (it is not a
    /// pool thread).
    public static func setIntAsync() throws -> Workload {
        let fixture = try StoreFixture("set-async")
        let store = fixture.store, key = BenchKeys.int
        let state = AsyncLoopState()
        return Workload("set Int · SQLiteDefaults, async", keep: [fixture]) { count in
            let done = DispatchSemaphore(value: 0)
            let start = state.counter.add(count, ordering: .relaxed).newValue - count
            Task {
                do {
                    for value in start..<(start + count) { try await store.set(value + 1, for: key) }
                } catch {
                    state.failure.withLock { $0 = error }
                }
                done.signal()
            }
            done.wait()
            if let error = state.failure.withLock({ $0 }) { throw error }
        }
    }
}

/// What the async loop's runs share: the next value, and a failure to rethrow on the measuring thread.
private final class AsyncLoopState: Sendable {
    let counter = Atomic<Int>(0)
    let failure = Mutex<(any Error)?>(nil)
}
