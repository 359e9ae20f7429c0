#if Flags
/// flagd's resolution of one flag, over a flag already read: state, targeting, default
/// variant, type check and metadata, in the order flagd's cores apply them.
struct FlagResolver<Lookup: FlagEvaluatorLookup> {
    let lookup: Lookup
    let setMetadata: [String: FlagValue]

    func resolve(_ key: String, flag: Result<FlagDefinition, FlagsError>?, type: FlagValueType, default fallback: FlagValue,
                 context: FlagEvaluationContext) -> FlagResolutionDetails<FlagValue> {
        func failure(_ code: FlagErrorCode, _ message: String, _ metadata: [String: FlagValue] = [:]) -> FlagResolutionDetails<FlagValue> {
            FlagResolutionDetails(value: fallback, variant: nil, reason: .error, error: FlagResolutionError(code: code, message: message), metadata: metadata)
        }
        guard let flag else { return failure(.flagNotFound, "flag \"\(key)\" is not in the store") }
        let definition: FlagDefinition
        switch flag {
        case .success(let read): definition = read
        case .failure(.store(let error)): return failure(.general, "the store: \(error)", setMetadata)
        case .failure(let error): return failure(.parseError, error.description, setMetadata)
        }
        let own = definition.metadata
        let metadata = own.isEmpty ? setMetadata : setMetadata.merging(own) { _, flag in flag }
        if definition.state == .disabled {
            return FlagResolutionDetails(value: fallback, variant: nil, reason: .disabled, metadata: metadata)
        }
        guard let rule = definition.rule else {
            return defaultVariant(of: definition, type: type, fallback: fallback, reason: .static, metadata: metadata)
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
        case .null: return defaultVariant(of: definition, type: type, fallback: fallback, reason: .default, metadata: metadata)
        case .string(let text): name = text
        default: name = JsonLogicCoercion.string(chosen)
        }
        guard let value = definition.variants[name] else {
            return failure(.general, "the rule chose \"\(name)\", which is not a variant", metadata)
        }
        guard type.matches(value) else {
            return failure(.typeMismatch, "variant \"\(name)\" is \(value.typeName), not \(type.rawValue)", metadata)
        }
        return FlagResolutionDetails(value: value, variant: name, reason: .targetingMatch, metadata: metadata)
    }

    private func defaultVariant(of flag: FlagDefinition, type: FlagValueType, fallback: FlagValue, reason: FlagResolutionReason,
                                metadata: [String: FlagValue]) -> FlagResolutionDetails<FlagValue> {
        guard let name = flag.defaultVariant, let value = flag.variants[name] else {
            return FlagResolutionDetails(value: fallback, variant: nil, reason: .default, metadata: metadata)
        }
        guard type.matches(value) else {
            return FlagResolutionDetails(value: fallback, variant: nil, reason: .error,
                                         error: FlagResolutionError(code: .typeMismatch, message: "variant \"\(name)\" is \(value.typeName), not \(type.rawValue)"),
                                         metadata: metadata)
        }
        return FlagResolutionDetails(value: value, variant: name, reason: reason, metadata: metadata)
    }
}
#endif
