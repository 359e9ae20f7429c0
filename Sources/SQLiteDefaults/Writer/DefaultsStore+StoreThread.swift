extension DefaultsStore {
    /// Runs `work` off the cooperative pool, on the thread the store owns, and returns its
    /// result to the suspended caller.
    /// - Throws: what `work` throws.
    // placeholder: replaced by the writer thread at merge
    package func onStoreThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try work()
    }
}
