import Foundation

/// Runs `body` on a thread of its own, as part of the calling task, without holding a thread
/// of the cooperative pool. Every test of the package shares that pool, which has one thread
/// per core: a test that blocks one for a minute (the soak) would starve the async tests,
/// whose deadlines then run out while they wait for a thread, not for what they test. The
/// task is the test's own, so `#expect` inside `body` is still the test's.
public func onOwnThread<Result>(_ body: () throws -> Result) async throws -> Result {
    let executor = OwnThreadExecutor()
    defer { executor.stop() }
    return try await withTaskExecutorPreference(executor) { try body() }
}

/// A task executor with one thread of its own (see ``onOwnThread(_:)``).
private final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Sendable proof: `jobs` and `stopped` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        Thread { [self] in run() }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
