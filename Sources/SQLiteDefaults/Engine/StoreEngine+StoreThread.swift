/// The engine's side of the store thread (``StoreThread``): running work there, and taking the
/// file's write lock there without holding the connection while another process keeps it.
extension StoreEngine {
    /// Runs `work` on the store's thread, suspending the caller (see ``StoreThread/run(_:)``).
    func onStoreThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await storeThread.run(work)
    }

    /// Takes the write lock with `body` (the statement that takes it: `BEGIN IMMEDIATE`, or an
    /// autocommit write), as the store thread's ``StoreThread/lockPolicy`` says.
    ///
    /// On the store thread, before its job wrote, the lock is tried once without waiting: a
    /// lock held by another connection throws `.busy` at once, and the thread tries the job
    /// again later, so the connection is not held — and every read of this store blocked —
    /// while SQLite's busy handler sleeps. Call with the database lock held, at depth 0.
    func takingWriteLock<Result>(_ connection: StoreConnection, _ body: () throws -> Result) throws -> Result {
        guard connection.transactionDepth == 0 else { return try body() }
        switch storeThread.lockPolicy {
        case .wait:
            return try body()
        case .refuse:
            throw lockHeldError
        case .tryOnce:
            connection.database.setBusyTimeout(milliseconds: 0)
            defer { connection.database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds) }
            do {
                let result = try body()
                storeThread.noteLockTaken()
                return result
            } catch let error as DefaultsError where error.code == .busy {
                storeThread.noteLockHeld()
                throw lockHeldError
            }
        }
    }

    /// What a try of a job that found the lock held throws (its result is discarded: the
    /// thread tries it again, and names the real wait if the busy timeout runs out).
    private var lockHeldError: DefaultsError {
        DefaultsError(.busy, "another connection holds the write lock; the store thread tries again", path: path)
    }

    var busyTimeoutMilliseconds: Int64 {
        configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
    }
}
