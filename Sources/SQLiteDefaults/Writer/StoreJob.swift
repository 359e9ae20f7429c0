import Synchronization

/// One call waiting for, or running on, a store's ``StoreThread``: the caller's continuation,
/// typed away, with the rule that it is resumed exactly once — by the thread with the result,
/// by a cancellation that came before the work started, or by the store closing first.
final class StoreJob: Sendable {
    /// Runs the work on the store thread; false when it found the write lock held before it
    /// wrote anything (nothing resumed: the job is to be tried again).
    typealias Attempt = @Sendable () -> Bool
    typealias Failure = @Sendable (any Error) -> Void

    private enum Phase {
        /// Queued or parked: cancellation or closing may still end it.
        case waiting
        case running
        case finished
    }

    private struct State {
        var phase = Phase.waiting
        var attempt: Attempt?
        var fail: Failure?
        /// Set by the task's cancellation whatever the phase: a job found cancelled when its
        /// attempt hands it back (lock busy) ends then.
        var cancelRequested = false
    }

    private let state = Mutex(State())
    /// When the call was made (the store thread lingers while calls come one right after another).
    let queued = ContinuousClock.now
    /// When the first attempt found the lock held: the busy timeout counts from there.
    let firstBusy = Mutex<ContinuousClock.Instant?>(nil)
    /// How many times an attempt found the lock held (the wait grows as SQLite's does).
    let busyCount = Atomic<Int>(0)

    /// Gives the job its work and its way to fail. Returns false when the task was cancelled
    /// before this (the job failed with `CancellationError`; do not queue it).
    func arm(attempt: @escaping Attempt, fail: @escaping Failure) -> Bool {
        let cancelled = state.withLock { state -> Bool in
            if state.cancelRequested {
                state.phase = .finished
                return true
            }
            state.attempt = attempt
            state.fail = fail
            return false
        }
        if cancelled { fail(CancellationError()) }
        return !cancelled
    }

    /// The task was cancelled: a job that has not started ends with `CancellationError`; one
    /// that runs completes (its write lands).
    func cancel() {
        let fail = state.withLock { state -> Failure? in
            state.cancelRequested = true
            guard state.phase == .waiting, let fail = state.fail else { return nil }
            state.phase = .finished
            return fail
        }
        fail?(CancellationError())
    }

    /// Ends a job that has not started with `error` (the store closed); false if it had.
    @discardableResult
    func fail(with error: any Error) -> Bool {
        let fail = state.withLock { state -> Failure? in
            guard state.phase == .waiting, let fail = state.fail else { return nil }
            state.phase = .finished
            return fail
        }
        fail?(error)
        return fail != nil
    }

    /// Starts one attempt, on the store thread. Returns nil when the job ended meanwhile
    /// (cancelled, or failed by closing), true when it completed, false when it must be tried
    /// again (it is waiting again, so cancellation and closing reach it).
    func runAttempt() -> Bool? {
        let attempt = state.withLock { state -> Attempt? in
            guard state.phase == .waiting, let attempt = state.attempt else { return nil }
            state.phase = .running
            return attempt
        }
        guard let attempt else { return nil }
        if attempt() {
            state.withLock { $0.phase = .finished }
            return true
        }
        let cancelled = state.withLock { state -> Failure? in
            guard state.cancelRequested else {
                state.phase = .waiting
                return nil
            }
            state.phase = .finished
            return state.fail
        }
        if let cancelled {
            cancelled(CancellationError())
            return nil
        }
        return false
    }
}
