extension DefaultsStore {
    /// Runs `work` on the store's own thread (off the cooperative pool and any event loop),
    /// suspending the caller: how the package's async paths (the console, Vapor's
    /// `req.defaults`, the fleet, the configuration provider) use the synchronous API.
    ///
    /// Jobs run one at a time, in the order they were queued. A job whose first write finds the
    /// file locked by another connection is run again from the start once the lock is free (the
    /// thread serves the jobs behind it meanwhile), so `work` must do nothing before its first
    /// write that it cannot do twice: reads, and building values, are fine.
    ///
    /// - Throws: what `work` throws; `CancellationError` when the task is cancelled before
    ///   `work` starts (a job that started completes); ``DefaultsError`` `.closed` when the store
    ///   closes before it starts, `.busy` when its first write found the lock held past the busy
    ///   timeout (the message names the real wait).
    package func onStoreThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await core.onStoreThread(work)
    }
}
