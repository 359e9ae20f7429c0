#if Flags
public import SQLiteDefaults

/// The one error type SQLiteDefaultsFlags throws: a flag set that cannot be read, a rule that
/// cannot be compiled, or the store's own failure.
///
/// ```swift
/// do {
///     try flags.load(FlagSet(json: text), actor: "deploy")
/// } catch let error as FlagsError {
///     print("not loaded:", error)   // nothing was written
/// }
/// ```
public enum FlagsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not JSON; the associated text says where.
    case invalidJSON(String)
    /// Arrays and objects nest deeper than the limit given (``FlagJSONParser/maximumDepth``).
    case tooDeep(Int)
    /// The JSON is not a flag set: a member of the wrong type or a value flagd refuses.
    case invalidFlagSet(String)
    /// One flag of the set is not valid; `key` names it.
    case invalidFlag(key: String, reason: String)
    /// A flag's rule holds `{"$ref": evaluator}` and the set has no such evaluator.
    case missingEvaluator(flag: String, evaluator: String)
    /// A targeting rule is not JsonLogic this evaluator knows (an unknown operator, a
    /// malformed operation); evaluating it answers `PARSE_ERROR`.
    case invalidRule(String)
    /// A targeting rule nests operations deeper than ``FlagRule/maximumDepth``.
    case ruleTooDeep(Int)
    /// A targeting rule has more nodes than ``FlagRule/maximumNodes``.
    case ruleTooLarge(Int)
    /// The store failed (reading or writing the flags' keys).
    case store(DefaultsError)

    /// One line saying what went wrong.
    public var description: String {
        switch self {
        case .invalidJSON(let detail): "not valid JSON: \(detail)"
        case .tooDeep(let limit): "JSON nests deeper than \(limit) levels"
        case .invalidFlagSet(let detail): "not a flag set: \(detail)"
        case .invalidFlag(let key, let reason): "flag \"\(key)\": \(reason)"
        case .missingEvaluator(let flag, let evaluator): "flag \"\(flag)\": $ref to a missing evaluator \"\(evaluator)\""
        case .invalidRule(let detail): "invalid targeting rule: \(detail)"
        case .ruleTooDeep(let limit): "targeting rule nests deeper than \(limit) operations"
        case .ruleTooLarge(let limit): "targeting rule has more than \(limit) nodes"
        case .store(let error): "store: \(error)"
        }
    }

    /// A store failure as this error (`DefaultsError` is what the store throws).
    static func storeFailure(_ error: any Error) -> FlagsError {
        .store(error as? DefaultsError ?? DefaultsError(.ioError, "\(error)"))
    }

    /// Two errors are equal when they say the same.
    public static func == (lhs: FlagsError, rhs: FlagsError) -> Bool {
        lhs.description == rhs.description
    }
}
#endif
