#if Flags
/// flagd's resolution of one flag, over a flag already read: state, targeting, default
/// variant, type check and metadata, in the order flagd's cores apply them.
struct FlagResolver<Lookup: FlagEvaluatorLookup> {
    let lookup: Lookup
    let setMetadata: [String: FlagValue]

    /// Resolves `flag` (what the cache read for `key`) as `type` for `context`.
    ///
    /// Generic over the caller's type, so that a typed resolution (`boolean`, `string`, …) is
    /// built once, not built as a ``FlagValue`` resolution and copied member by member into
    /// another (a fifth of a static flag's cost). `convert` turns a variant that passed the
    /// type check into the caller's type; `fallback` stands in if it ever failed.
    func resolve<Value>(_ key: String, flag: FlagCache.FlagEntry?, type: FlagValueType, default fallback: Value,
                        context: FlagEvaluationContext, convert: (FlagValue) -> Value?) -> FlagResolutionDetails<Value> {
        func failure(_ code: FlagErrorCode, _ message: String, _ metadata: [String: FlagValue] = [:]) -> FlagResolutionDetails<Value> {
            FlagResolutionDetails(value: fallback, variant: nil, reason: .error, error: FlagResolutionError(code: code, message: message), metadata: metadata)
        }
        guard let flag else { return failure(.flagNotFound, "flag \"\(key)\" is not in the store") }
        let definition: FlagDefinition
        if let read = flag.definition {
            definition = read
        } else {
            switch flag.parsed {
            case .success(let read): definition = read
            case .failure(.store(let error)): return failure(.general, "the store: \(error)", setMetadata)
            case .failure(let error): return failure(.parseError, error.description, setMetadata)
            }
        }
        let own = definition.metadata
        let metadata = own.isEmpty ? setMetadata : setMetadata.merging(own) { _, flag in flag }
        if definition.state == .disabled {
            return FlagResolutionDetails(value: fallback, variant: nil, reason: .disabled, metadata: metadata)
        }
        guard let rule = definition.rule else {
            return defaultVariant(of: definition, type: type, fallback: fallback, reason: .static, metadata: metadata, convert: convert)
        }
        let compiled: FlagRule
        switch rule {
        case .success(let ready): compiled = ready
        case .failure(let error): return failure(.parseError, error.description, metadata)
        }
        let chosen: FlagValue
        do {
            chosen = try FlagRuleEvaluator(flagKey: key, context: context, lookup: lookup).evaluate(compiled)
        } catch {
            return failure(.parseError, error.message, metadata)
        }
        let name: String
        switch chosen {
        case .null: return defaultVariant(of: definition, type: type, fallback: fallback, reason: .default, metadata: metadata, convert: convert)
        case .string(let text): name = text
        default: name = JsonLogicCoercion.string(chosen)
        }
        guard let value = definition.variants[name] else {
            return failure(.general, "the rule chose \"\(name)\", which is not a variant", metadata)
        }
        guard type.matches(value) else {
            return failure(.typeMismatch, "variant \"\(name)\" is \(value.typeName), not \(type.rawValue)", metadata)
        }
        return FlagResolutionDetails(value: convert(value) ?? fallback, variant: name, reason: .targetingMatch, metadata: metadata)
    }

    private func defaultVariant<Value>(of flag: FlagDefinition, type: FlagValueType, fallback: Value, reason: FlagResolutionReason,
                                       metadata: [String: FlagValue], convert: (FlagValue) -> Value?) -> FlagResolutionDetails<Value> {
        guard let name = flag.defaultVariant, let value = flag.defaultValue else {
            return FlagResolutionDetails(value: fallback, variant: nil, reason: .default, metadata: metadata)
        }
        guard type.matches(value) else {
            return FlagResolutionDetails(value: fallback, variant: nil, reason: .error,
                                         error: FlagResolutionError(code: .typeMismatch, message: "variant \"\(name)\" is \(value.typeName), not \(type.rawValue)"),
                                         metadata: metadata)
        }
        return FlagResolutionDetails(value: convert(value) ?? fallback, variant: name, reason: reason, metadata: metadata)
    }
}
#endif
