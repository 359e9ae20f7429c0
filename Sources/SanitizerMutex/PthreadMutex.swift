import Foundation

/// A pthread-based lock with `Synchronization.Mutex`'s shape. The library's locks become this
/// type when `Scripts/sanitize.sh` builds with `-DSQLITEDEFAULTS_PTHREAD_MUTEX` (the one
/// `typealias Mutex = PthreadMutex`, in `Sources/SQLiteDefaults/Support/SanitizerMutex.swift`,
/// shadows the standard `Mutex` inside the library); the plumbing around it (`ChildProcesses`,
/// the test helper) always uses it, being off every hot path, and the test suites use
/// `Locked`. So the alias lives in one place: a typealias is visible in its own module only, and
/// an imported one would need an import in every file that locks.
///
/// Why: on Linux (Swift 6.3) ThreadSanitizer does not see the ordering `Synchronization.Mutex`
/// provides when it is contended (the slow path is a priority-inheritance futex: the kernel hands
/// the lock over, inside code TSan does not instrument), and reports every access behind it as a race (two threads
/// incrementing a counter under it get the exact count, yet TSan reports a race). TSan does
/// intercept pthread mutexes, so under this lock a report means a real race. Release builds
/// never use it. The CI run it was missing from (the test harness's `ChildProcesses`) reported
/// exactly that false race: two reader threads appending under one contended `Mutex`.
public final class PthreadMutex<Value>: @unchecked Sendable {
    // Sendable proof: `value` is only touched inside `withLock`, between lock and unlock of
    // `mutex`; both live in allocations made once that never move.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// A lock around `value`.
    public init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value while holding the lock; rethrows what `body` throws.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// Runs `body` only if the lock is free now, else returns nil; rethrows what `body` throws.
    public func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
