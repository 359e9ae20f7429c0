import Synchronization

/// Where one async call's result meets its caller: taken at once when it came while the caller
/// still looked for it (``isFinished``, ``take()``), else handed to the caller's continuation
/// (``wait()``). Completed exactly once (the ``StoreJob`` resumes once); read exactly once.
final class StoreCall<T: Sendable>: Sendable {
    private enum State {
        case pending
        case suspended(CheckedContinuation<T, any Error>)
        case done(Result<T, any Error>)
        case taken
    }

    private let state = Mutex(State.pending)
    /// Set with the result, so that a caller looking for it reads one atomic, not the lock.
    private let finished = Atomic<Bool>(false)

    /// Hands `result` to the caller: kept for its look, or resuming its continuation.
    func complete(_ result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            switch state {
            case .pending:
                state = .done(result)
                return nil
            case .suspended(let continuation):
                state = .taken
                return continuation
            case .done, .taken:
                return nil
            }
        }
        finished.store(true, ordering: .releasing)
        continuation?.resume(with: result)
    }

    /// Whether the result has come (a caller looking for it reads one atomic, not the lock).
    var isFinished: Bool { finished.load(ordering: .acquiring) }

    /// Suspends the caller until the result comes (at once if it has).
    func wait() async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let result = state.withLock { state -> Result<T, any Error>? in
                if case .done(let result) = state {
                    state = .taken
                    return result
                }
                state = .suspended(continuation)
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }

    /// The result, when it came and no one read it yet (the call is then read).
    func take() -> Result<T, any Error>? {
        state.withLock { state in
            guard case .done(let result) = state else { return nil }
            state = .taken
            return result
        }
    }
}
