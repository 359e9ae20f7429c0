#if Flags
import SQLiteDefaults

/// What ``DefaultsFlags/load(_:actor:reason:allowingMissingEvaluators:)`` changed, by store key.
public struct FlagLoadSummary: Sendable, Hashable {
    /// Keys written: new flags, evaluators or metadata, and changed ones.
    public var written: [String] = []
    /// Keys removed: flags and evaluators the set no longer has.
    public var removed: [String] = []
    /// Keys left as they were (their text was already the set's).
    public var unchanged: [String] = []
}

extension DefaultsFlags {
    /// Makes `set` the store's flag set, in one transaction: a flag (or evaluator, or the
    /// metadata) whose stored text is already the set's is not written — no history entry,
    /// no observer woken — a changed one is one write of its key, and one the set no longer
    /// has is removed. Each is stored as compact JSON with sorted members.
    ///
    /// The transaction takes the store's write lock before it reads what is stored, so two
    /// processes loading at once leave one set or the other, never a mixture.
    ///
    /// ```swift
    /// let summary = try flags.load(FlagSet(json: text), actor: "deploy", reason: "release 4.2")
    /// ```
    ///
    /// - Parameters:
    ///   - set: the flag set to store.
    ///   - actor: who loads it, kept in each change's history.
    ///   - reason: why, kept in each change's history.
    ///   - allowingMissingEvaluators: keep a `$ref` to an evaluator the set lacks (it then
    ///     evaluates to `PARSE_ERROR`, as in flagd); by default such a set is refused.
    /// - Returns: the keys written, removed and left unchanged.
    /// - Throws: ``FlagsError`` `.missingEvaluator` (nothing written), `.store` when the store
    ///   refuses (nothing written: the transaction rolls back).
    @discardableResult
    public func load(_ set: FlagSet, actor: String?, reason: String? = nil, allowingMissingEvaluators: Bool = false) throws(FlagsError) -> FlagLoadSummary {
        if !allowingMissingEvaluators { try set.validateReferences() }
        var wanted: [String: String] = [:]
        for (key, flag) in set.flags { wanted[Self.flagKeyPrefix + key] = flag.json.jsonText }
        for (name, rule) in set.evaluators { wanted[Self.evaluatorKeyPrefix + name] = rule.jsonText }
        if !set.metadata.isEmpty { wanted[Self.metadataKey] = FlagValue.object(set.metadata).jsonText }
        do {
            return try store.transaction(actor: actor, reason: reason) { transaction in
                var summary = FlagLoadSummary()
                // Read under the write lock: no other writer can commit between this list and the writes.
                let present = try store.keys().filter { Self.isFlagStoreKey($0) }
                for name in wanted.keys.sorted() {
                    let key = DefaultsKey<String?>(name)
                    if let stored = try? transaction.value(for: key), stored == wanted[name] {
                        summary.unchanged.append(name)
                    } else {
                        try transaction.set(wanted[name], for: key)
                        summary.written.append(name)
                    }
                }
                for name in present where wanted[name] == nil {
                    try transaction.remove(DefaultsKey<String?>(name))
                    summary.removed.append(name)
                }
                return summary
            }
        } catch let error as DefaultsError {
            throw .store(error)
        } catch {
            throw .store(DefaultsError(.ioError, "\(error)"))
        }
    }

    /// Whether a store key is one of the flags' keys (a flag, an evaluator or the metadata).
    public static func isFlagStoreKey(_ key: String) -> Bool {
        key == metadataKey || key.hasPrefix(flagKeyPrefix) || key.hasPrefix(evaluatorKeyPrefix)
    }

    /// The flag keys in the store, sorted.
    ///
    /// - Throws: ``FlagsError`` `.store` when the store cannot be read.
    public func flagKeys() throws(FlagsError) -> [String] {
        do {
            return try store.keys().filter { $0.hasPrefix(Self.flagKeyPrefix) }.map { String($0.dropFirst(Self.flagKeyPrefix.count)) }.sorted()
        } catch {
            throw .store(error as? DefaultsError ?? DefaultsError(.ioError, "\(error)"))
        }
    }

    /// The stored flag `key` as read now: `nil` when there is none, a failure when its key
    /// holds text that is not a valid flag.
    public func flag(_ key: String) -> Result<FlagDefinition, FlagsError>? {
        readFlag(key)?.parsed
    }
}
#endif
