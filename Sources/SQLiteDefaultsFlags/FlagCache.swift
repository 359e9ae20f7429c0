#if Flags
import SQLiteDefaults

/// What ``DefaultsFlags`` last read of each key, and what it compiled from that text.
struct FlagCache {
    /// One key's text and what it compiled to. A class, so that taking an entry out of the
    /// lock is one retain rather than a copy of each member (half a static flag's cost before).
    final class Entry<Parsed: Sendable>: Sendable {
        let storeKey: DefaultsKey<String?>
        let source: String
        let parsed: Parsed

        init(storeKey: DefaultsKey<String?>, source: String, parsed: Parsed) {
            self.storeKey = storeKey
            self.source = source
            self.parsed = parsed
        }
    }

    /// One flag's key and what it compiled to. `definition` repeats `parsed`'s flag so that a
    /// resolution reads it without copying the `Result` (whose copy goes through the generic
    /// enum's value witnesses: a quarter of a static flag's cost before).
    final class FlagEntry: Sendable {
        let storeKey: DefaultsKey<String?>
        let source: String
        let parsed: Result<FlagDefinition, FlagsError>
        let definition: FlagDefinition?

        init(storeKey: DefaultsKey<String?>, source: String, parsed: Result<FlagDefinition, FlagsError>) {
            self.storeKey = storeKey
            self.source = source
            self.parsed = parsed
            definition = try? parsed.get()
        }
    }

    var flags: [String: FlagEntry] = [:]
    var evaluators: [String: Entry<Result<FlagRule, FlagsError>>] = [:]
    var metadata: Entry<Result<[String: FlagValue], FlagsError>>?
}

/// `$ref` resolved through the store, each evaluator compiled once per text.
struct StoreEvaluatorLookup: FlagEvaluatorLookup {
    let flags: DefaultsFlags

    func evaluator(named name: String) throws(FlagRuleFailure) -> FlagRule? {
        switch flags.readEvaluator(name) {
        case nil: return nil
        case .success(let rule)?: return rule
        case .failure(let error)?: throw FlagRuleFailure(message: "evaluator \"\(name)\": \(error)")
        }
    }
}

extension DefaultsFlags {
    /// The flag stored under `key`: `nil` when there is none, a failure when its text is not a
    /// valid flag (a raw SQL write, say) or the store cannot be read (an entry that is not
    /// cached).
    func readFlag(_ key: String) -> FlagCache.FlagEntry? {
        let entry = cache.withLock { $0.flags[key] }
        let storeKey = entry?.storeKey ?? DefaultsKey<String?>(Self.flagKeyPrefix + key)
        let text: String?
        do {
            text = try store.value(for: storeKey)
        } catch {
            return FlagCache.FlagEntry(storeKey: storeKey, source: "", parsed: .failure(.storeFailure(error)))
        }
        guard let text else {
            // Gone: forget it, so that the cache holds only keys that exist.
            if entry != nil { cache.withLock { _ = $0.flags.removeValue(forKey: key) } }
            return nil
        }
        // The store hands back the string it cached, so an unchanged key compares by identity.
        if let entry, entry.source == text { return entry }
        let parsed: Result<FlagDefinition, FlagsError>
        do throws(FlagsError) { parsed = .success(try FlagDefinition(key: key, json: text)) } catch { parsed = .failure(error) }
        let fresh = FlagCache.FlagEntry(storeKey: storeKey, source: text, parsed: parsed)
        cache.withLock { $0.flags[key] = fresh }
        return fresh
    }

    /// The shared evaluator `name`, compiled: `nil` when there is none.
    func readEvaluator(_ name: String) -> Result<FlagRule, FlagsError>? {
        let entry = cache.withLock { $0.evaluators[name] }
        let storeKey = entry?.storeKey ?? DefaultsKey<String?>(Self.evaluatorKeyPrefix + name)
        let text: String?
        do { text = try store.value(for: storeKey) } catch { return .failure(.storeFailure(error)) }
        guard let text else {
            if entry != nil { cache.withLock { _ = $0.evaluators.removeValue(forKey: name) } }
            return nil
        }
        if let entry, entry.source == text { return entry.parsed }
        let parsed: Result<FlagRule, FlagsError>
        do throws(FlagsError) { parsed = .success(try FlagRule(json: text)) } catch { parsed = .failure(error) }
        cache.withLock { $0.evaluators[name] = FlagCache.Entry(storeKey: storeKey, source: text, parsed: parsed) }
        return parsed
    }

    /// The flag set's metadata (`[:]` when there is none). Throws rather than answering a
    /// `Result`: copying a `Result` of a dictionary and `FlagsError` goes through the generic
    /// enum's value witnesses, which cost as much as the rest of a static flag's resolution.
    func readMetadata() throws(FlagsError) -> [String: FlagValue] {
        let entry = cache.withLock { $0.metadata }
        // The key made once (a set without metadata has no entry to keep it in): making a
        // `DefaultsKey` costs more than the rest of a static flag's resolution.
        let storeKey = metadataStoreKey
        let text: String?
        do { text = try store.value(for: storeKey) } catch { throw .storeFailure(error) }
        guard let text else { return [:] }
        let parsed: Result<[String: FlagValue], FlagsError>
        if let entry, entry.source == text {
            parsed = entry.parsed
        } else {
            do throws(FlagsError) {
                guard case .object(let members) = try FlagJSONParser.parse(text) else { throw .invalidFlagSet("metadata is an object") }
                parsed = .success(members)
            } catch {
                parsed = .failure(error)
            }
            cache.withLock { $0.metadata = FlagCache.Entry(storeKey: storeKey, source: text, parsed: parsed) }
        }
        switch parsed {
        case .success(let members): return members
        case .failure(let error): throw error
        }
    }
}
#endif
