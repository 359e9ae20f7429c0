import Synchronization

/// The bounded queue between an observer (called on the thread that delivers a change) and the
/// one task that iterates a sequence of changes: at most ``limit`` unread changes. When a new
/// change arrives with the queue full, the oldest unread one is dropped and counted; the first
/// change read after a run of dropped ones carries that count and the history position before
/// the first of them (``DefaultsMissedChanges``), so the consumer is told at once, not only
/// when a later change happens to arrive.
///
/// One consumer: ``next()`` must not be called again before it returns, as for any
/// `AsyncIterator`.
final class ChangeBuffer<Element: Sendable>: Sendable {
    private struct Missed {
        var count: Int
        var resumeAfter: Int64?
    }

    private struct State {
        var items: [(element: Element, resumeAfter: Int64?)] = []
        var head = 0
        /// Changes dropped just before `items[head]`.
        var missed: Missed?
        var waiter: CheckedContinuation<Element?, Never>?
        /// The store closed: what is queued is still read, then the sequence ends.
        var finished = false
        /// The consumer's task was cancelled: the sequence ends at once.
        var cancelled = false

        var unread: Int { items.count - head }
    }

    /// The most unread changes held.
    let limit: Int
    /// The element with the record of what was dropped before it.
    private let marking: @Sendable (Element, DefaultsMissedChanges) -> Element
    private let state = Mutex(State())

    init(limit: Int, marking: @escaping @Sendable (Element, DefaultsMissedChanges) -> Element) {
        precondition(limit > 0, "a change buffer holds at least one change")
        self.limit = limit
        self.marking = marking
    }

    /// Queues a change (or hands it to the waiting consumer); drops the oldest unread one when
    /// the queue is full. `resumeAfter` is the history position just before the change, if known.
    func push(_ element: Element, resumeAfter: Int64?) {
        let handOff = state.withLock { state -> (CheckedContinuation<Element?, Never>, Element)? in
            guard !state.finished, !state.cancelled else { return nil }
            if let waiter = state.waiter {
                // The consumer waits, so nothing is queued and nothing was dropped.
                state.waiter = nil
                return (waiter, element)
            }
            state.items.append((element, resumeAfter))
            if state.unread > limit {
                let dropped = state.items[state.head]
                state.head += 1
                if var missed = state.missed {
                    missed.count += 1
                    // One change the history cannot name makes the whole run unnamed.
                    if dropped.resumeAfter == nil { missed.resumeAfter = nil }
                    state.missed = missed
                } else {
                    state.missed = Missed(count: 1, resumeAfter: dropped.resumeAfter)
                }
                if state.head >= limit {
                    state.items.removeFirst(state.head)
                    state.head = 0
                }
            }
            return nil
        }
        // Resumed outside the lock: the consumer's task may run at once.
        if let (waiter, element) = handOff { waiter.resume(returning: element) }
    }

    /// The store closed: the consumer reads what is queued, then the sequence ends.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next change, waiting for one; `nil` once the store closed and the queue is empty, or
    /// when the consumer's task is cancelled.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let ready = state.withLock { state -> Element?? in
                    if Task.isCancelled { state.cancelled = true }
                    if state.cancelled { return .some(nil) }
                    guard state.head < state.items.count else {
                        if state.finished { return .some(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    var element = state.items[state.head].element
                    state.head += 1
                    if state.head == state.items.count {
                        state.items.removeAll(keepingCapacity: state.items.count <= 64)
                        state.head = 0
                    }
                    if let missed = state.missed {
                        state.missed = nil
                        element = marking(element, DefaultsMissedChanges(count: missed.count, resumeAfter: missed.resumeAfter))
                    }
                    return .some(element)
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                state.cancelled = true
                state.items.removeAll()
                state.head = 0
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
