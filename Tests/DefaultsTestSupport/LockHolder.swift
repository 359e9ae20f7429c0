import Foundation
import SQLiteDefaults
import Synchronization

/// Holds a database's write lock through a connection of its own, on a thread of its own (never
/// a pool thread), until ``release()``: for tests of what waits for a lock and what must not.
/// SQLite's locks hold between connections of one process as between processes.
public final class LockHolder: Sendable {
    /// What the holding thread shares with the holder (the thread keeps it, not the holder).
    private final class Shared: Sendable {
        let holding = Atomic<Bool>(false)
        let done = Atomic<Bool>(false)
        let released = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    /// Opens `database` and starts holding its write lock (an open write transaction).
    public init(_ database: String) throws {
        let store = try DefaultsStore(path: database)
        let shared = self.shared
        Thread {
            defer { shared.done.store(true, ordering: .releasing) }
            try? store.transaction { tx in
                tx[DefaultsKey<Int>("lock-holder", default: 0)] = 1
                shared.holding.store(true, ordering: .releasing)
                shared.released.wait()
            }
            try? store.close()
        }.start()
    }

    /// Waits (suspending) until the lock is held; false if it was not within `timeout`.
    public func held(timeout: Duration = .seconds(30)) async -> Bool {
        await waitUntil(timeout: timeout) { shared.holding.load(ordering: .acquiring) }
    }

    /// Commits the transaction, releasing the lock, and waits (suspending) until it did.
    @discardableResult
    public func release(timeout: Duration = .seconds(30)) async -> Bool {
        shared.released.signal()
        return await waitUntil(timeout: timeout) { shared.done.load(ordering: .acquiring) }
    }

    deinit { shared.released.signal() }
}
