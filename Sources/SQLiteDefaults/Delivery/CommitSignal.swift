import Synchronization

/// Wakes the change feeds (``DefaultsChangeFeed``) of a store when the change log may have grown:
/// after each own commit that logged entries, and each look of the monitor that saw another
/// connection commit. A feed reads the log itself, so a signal carries nothing; waking one
/// that finds nothing new costs one small query.
///
/// Each waiter holds an `AsyncStream` that keeps at most one pending signal: a commit that lands
/// while the feed is reading is not lost (the feed reads again), and a thousand commits while it
/// reads are one more read, not a thousand.
final class CommitSignal: Sendable {
    private let waiters = Mutex<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextID = Mutex(0)
    /// Whether anyone waits, read without the lock on every commit.
    private let count = Atomic<Int>(0)

    /// A stream that yields once after each signal (signals while unread merge into one), and
    /// finishes on ``finishAll()`` or when the returned cancel runs.
    func subscribe() -> (stream: AsyncStream<Void>, cancel: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextID.withLock { id in
            defer { id += 1 }
            return id
        }
        waiters.withLock { $0[id] = continuation }
        count.add(1, ordering: .relaxed)
        let cancel: @Sendable () -> Void = { [weak self] in
            guard let self, let removed = self.waiters.withLock({ $0.removeValue(forKey: id) }) else { return }
            self.count.subtract(1, ordering: .relaxed)
            removed.finish()
        }
        continuation.onTermination = { _ in cancel() }
        return (stream, cancel)
    }

    /// Wakes every waiter.
    func signal() {
        guard count.load(ordering: .relaxed) > 0 else { return }
        for continuation in waiters.withLock({ Array($0.values) }) { continuation.yield() }
    }

    /// Ends every waiter's stream: the store closed.
    func finishAll() {
        let all = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        count.store(0, ordering: .relaxed)
        for continuation in all { continuation.finish() }
    }
}
