#if Flags
import SQLiteDefaults
import Synchronization

extension DefaultsFlags {
    /// One flag's resolution for one context: the current one first, then a new one each
    /// time the flag's key, the flag set's metadata or an evaluator the flag references
    /// (directly or through other evaluators) changes — by this process, another one or a
    /// raw SQL write.
    ///
    /// Bounded: a consumer that falls behind gets the newest resolution, never a backlog.
    /// Ending the loop or cancelling its task stops observing.
    ///
    /// ```swift
    /// for await details in flags.updates("new-checkout", type: .boolean, default: false, context: context) {
    ///     checkoutEnabled = details.value == .bool(true)
    /// }
    /// ```
    public func updates(_ key: String, type: FlagValueType, default fallback: FlagValue,
                        context: FlagEvaluationContext = FlagEvaluationContext()) -> AsyncStream<FlagResolutionDetails<FlagValue>> {
        let (stream, continuation) = AsyncStream.makeStream(of: FlagResolutionDetails<FlagValue>.self, bufferingPolicy: .bufferingNewest(1))
        let flagStoreKey = Self.flagKeyPrefix + key
        // Observing starts before the first resolution, so that no change falls between them;
        // the lock keeps a change's resolution from being yielded before the first one.
        let order = Mutex(())
        let observation = store.observe(prefix: Self.keyPrefix) { [weak self] change in
            guard let self else { return }
            guard change.key == flagStoreKey || change.key == Self.metadataKey
                || (change.key.hasPrefix(Self.evaluatorKeyPrefix)
                    && self.referencedEvaluators(of: key).contains(String(change.key.dropFirst(Self.evaluatorKeyPrefix.count)))) else { return }
            _ = order.withLock { _ in continuation.yield(self.resolve(key, type: type, default: fallback, context: context)) }
        }
        _ = order.withLock { _ in continuation.yield(resolve(key, type: type, default: fallback, context: context)) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// The evaluators a flag's rule reaches through `$ref`, following evaluators' own `$ref`s.
    func referencedEvaluators(of key: String) -> Set<String> {
        guard let flag = readFlag(key)?.definition else { return [] }
        var found: Set<String> = []
        var pending = Array(flag.references)
        while let name = pending.popLast() {
            guard found.insert(name).inserted else { continue }
            if case .success(let rule)? = readEvaluator(name) { pending.append(contentsOf: rule.references) }
        }
        return found
    }
}
#endif
