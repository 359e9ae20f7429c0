import Foundation
import Synchronization

/// Serializes all use of a connection (`State` holds it), and lets the thread that holds it
/// come back in: code running inside `transaction { }` (or a `Decodable` init called while
/// reading) may use the store again without deadlocking, and joins the work in progress.
final class DatabaseAccess<State>: @unchecked Sendable {
    // Sendable proof: `state` is only touched inside `withState`, which either takes `lock`
    // or runs on the thread that already holds it. `owner` is an atomic that holds the id of
    // the thread holding `lock` (0 when free); a thread can only ever read its own id there
    // if it stored it itself while holding the lock, so the reentrant path never races.
    private let lock = Mutex<Void>(())
    private let owner = Atomic<UInt>(0)
    private let state: State

    init(state: State) {
        self.state = state
    }

    /// True when the calling thread holds the connection (it is inside `withState`).
    var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == Self.currentThreadID
    }

    func withState<Result>(_ body: (State) throws -> Result) throws -> Result {
        let me = Self.currentThreadID
        if owner.load(ordering: .relaxed) == me {
            return try body(state)
        }
        var result: Swift.Result<Result, any Error>?
        lock.withLock { _ in
            owner.store(me, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
            result = Swift.Result { try body(state) }
        }
        // `withLock` always runs its body, so `result` is set.
        return try result!.get()
    }

    /// Like `withState`, but returns nil at once instead of waiting when another thread holds
    /// the connection (the external-change monitor must never make a writer wait).
    func withStateIfAvailable<Result>(_ body: (State) throws -> Result) throws -> Result? {
        let me = Self.currentThreadID
        if owner.load(ordering: .relaxed) == me {
            return try body(state)
        }
        var result: Swift.Result<Result, any Error>?
        let acquired: Void? = lock.withLockIfAvailable { _ in
            owner.store(me, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
            result = Swift.Result { try body(state) }
        }
        guard acquired != nil, let result else { return nil }
        return try result.get()
    }

    private static var currentThreadID: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }
}
