#if Console
import Synchronization

/// What one event-stream client has not been sent yet, bounded: a client that stops reading
/// (a stalled browser tab, a script that never reads) costs at most ``limit`` pending bytes,
/// then its queue overflows and its stream ends, instead of the server buffering without bound.
/// A page reconnects and reloads the keys, so it loses nothing it shows.
final class EventQueue: Sendable {
    /// What ``next()`` hands the writer.
    enum Next: Equatable {
        /// Events (already framed as `data: …\n\n` text), oldest first, to write in one go.
        case events([String])
        /// The client fell more than ``limit`` bytes behind: send a last notice and end.
        case overflow
        /// The stream ends: the server is shutting down or the client went away.
        case finished
    }

    fileprivate struct State {
        var pending: [String] = []
        var pendingBytes = 0
        var waiter: CheckedContinuation<Next, Never>?
        var overflowed = false
        var finished = false
    }

    /// Pending bytes past which the client is dropped.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Queues a framed event; wakes the writer if it waits. Ignored once the queue has
    /// overflowed or finished.
    func push(_ event: String) {
        let limit = self.limit
        let resume = state.withLock { (state: inout State) -> (CheckedContinuation<Next, Never>, Next)? in
            guard !state.overflowed, !state.finished else { return nil }
            state.pending.append(event)
            state.pendingBytes += event.utf8.count
            if state.pendingBytes > limit {
                state.overflowed = true
                state.pending = []
                state.pendingBytes = 0
            }
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.takeNext())
        }
        // Resumed outside the lock: the writer's task may run at once.
        if let (waiter, next) = resume { waiter.resume(returning: next) }
    }

    /// Ends the stream: the writer's next ``next()`` (or the one it waits in) returns `.finished`.
    func finish() {
        let waiter = state.withLock { (state: inout State) -> CheckedContinuation<Next, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .finished)
    }

    /// Waits for events, an overflow or the end; returns `.finished` when the task is cancelled.
    func next() async -> Next {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Next, Never>) in
                let ready = state.withLock { (state: inout State) -> Next? in
                    if Task.isCancelled { state.finished = true }
                    if state.pending.isEmpty && !state.overflowed && !state.finished {
                        state.waiter = continuation
                        return nil
                    }
                    return state.takeNext()
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }
}

extension EventQueue.State {
    /// What is ready now, taking it out of the queue.
    fileprivate mutating func takeNext() -> EventQueue.Next {
        if overflowed { finished = true; return .overflow }
        if !pending.isEmpty {
            defer { pending = []; pendingBytes = 0 }
            return .events(pending)
        }
        return .finished
    }
}
#endif
