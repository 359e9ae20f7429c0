#if Fleet
import PostgresNIO
import SQLiteDefaults
import Synchronization

/// Runs one round of PostgreSQL work with a deadline that holds even when the work does not
/// answer cancellation: a query whose server went away without closing the socket (stopped,
/// cut off), or one PostgresNIO never completes, would otherwise hold the sync forever, since a
/// task group waits for every child. At the deadline the caller is resumed with `.unreachable`
/// and the connection is closed, which fails whatever was still waiting on it.
enum Deadline {
    static func run<Result: Sendable>(
        within timeout: Duration,
        closing connection: PostgresConnection,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await run(within: timeout, onTimeout: { try? await connection.close() }, body)
    }

    /// The same for work on no connection of the caller's: at the deadline the caller is
    /// resumed with `.unreachable`, the work is cancelled, and `onTimeout` runs (to release what
    /// the work holds).
    static func run<Result: Sendable>(
        within timeout: Duration,
        onTimeout: @escaping @Sendable () async -> Void,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = Outcome<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                outcome.install(continuation)
                let work = Task {
                    do {
                        outcome.finish(.success(try await body()))
                    } catch {
                        outcome.finish(.failure(error))
                    }
                }
                let timer = Task {
                    try await Task.sleep(for: timeout)
                    if outcome.finish(.failure(DefaultsError(.unreachable, "PostgreSQL did not answer within \(timeout)"))) {
                        work.cancel()
                        await onTimeout()
                    }
                }
                outcome.onFinish {
                    timer.cancel()
                    work.cancel()
                }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// The continuation, resumed exactly once by whichever comes first: the work, the timer,
    /// or cancellation.
    private final class Outcome<Result: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Result, any Error>?
            var early: Swift.Result<Result, any Error>?
            var done = false
            var cleanup: (@Sendable () -> Void)?
        }

        private let state = Mutex(State())

        func install(_ continuation: CheckedContinuation<Result, any Error>) {
            let early = state.withLock { state -> Swift.Result<Result, any Error>? in
                guard let early = state.early else {
                    state.continuation = continuation
                    return nil
                }
                return early
            }
            if let early { continuation.resume(with: early) }
        }

        func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
            let runNow = state.withLock { state -> Bool in
                if state.done { return true }
                state.cleanup = cleanup
                return false
            }
            if runNow { cleanup() }
        }

        /// Resumes the caller unless something already did; true when this call did.
        @discardableResult
        func finish(_ result: Swift.Result<Result, any Error>) -> Bool {
            let (continuation, cleanup, first) = state.withLock { state -> (CheckedContinuation<Result, any Error>?, (@Sendable () -> Void)?, Bool) in
                guard !state.done else { return (nil, nil, false) }
                state.done = true
                defer {
                    state.continuation = nil
                    state.cleanup = nil
                }
                if state.continuation == nil { state.early = result }
                return (state.continuation, state.cleanup, true)
            }
            continuation?.resume(with: result)
            cleanup?()
            return first
        }
    }
}
#endif
