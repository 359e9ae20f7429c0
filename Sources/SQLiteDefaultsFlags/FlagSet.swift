#if Flags
/// A flag set: the JSON flagd reads — `flags`, shared `$evaluators` and the set's `metadata`.
///
/// ```swift
/// let set = try FlagSet(json: String(decoding: try Data(contentsOf: url), as: UTF8.self))
/// try set.validateReferences()
/// ```
public struct FlagSet: Sendable {
    /// The flags by key.
    public var flags: [String: FlagDefinition]
    /// The shared rules by name, for `{"$ref": name}`.
    public var evaluators: [String: FlagValue]
    /// The set's metadata, under every flag's own.
    public var metadata: [String: FlagValue]

    /// A set of the given parts.
    public init(flags: [String: FlagDefinition] = [:], evaluators: [String: FlagValue] = [:], metadata: [String: FlagValue] = [:]) {
        self.flags = flags
        self.evaluators = evaluators
        self.metadata = metadata
    }

    /// Reads a flag set from its JSON text, checking every flag (see ``FlagDefinition``).
    ///
    /// - Throws: ``FlagsError`` `.invalidJSON`/`.tooDeep` for the text, `.invalidFlagSet`
    ///   for the set's members, `.invalidFlag` for the first bad flag (in key order).
    public init(json: String) throws(FlagsError) {
        guard case .object(let members) = try FlagJSONParser.parse(json) else { throw .invalidFlagSet("a flag set is a JSON object") }
        var flags: [String: FlagDefinition] = [:]
        switch members["flags"] {
        case nil: break
        case .object(let given)?:
            for key in given.keys.sorted() {
                flags[key] = try FlagDefinition(key: key, value: given[key] ?? .null)
            }
        default: throw .invalidFlagSet("flags is an object")
        }
        var evaluators: [String: FlagValue] = [:]
        switch members["$evaluators"] {
        case nil, .null?: break
        case .object(let given)?:
            guard !given.keys.contains("") else { throw .invalidFlagSet("an evaluator's name is not empty") }
            evaluators = given
        default: throw .invalidFlagSet("$evaluators is an object")
        }
        var metadata: [String: FlagValue] = [:]
        switch members["metadata"] {
        case nil, .null?: break
        case .object(let given)?:
            guard given.allSatisfy({ !$0.key.isEmpty && FlagDefinition.isMetadataValue($0.value) }) else {
                throw .invalidFlagSet("metadata values are strings, numbers or booleans")
            }
            metadata = given
        default: throw .invalidFlagSet("metadata is an object")
        }
        self.init(flags: flags, evaluators: evaluators, metadata: metadata)
    }

    /// Checks that every `$ref` (in flags and in evaluators) names an evaluator of the set.
    ///
    /// - Throws: ``FlagsError`` `.missingEvaluator` for the first one that does not (in key order).
    public func validateReferences() throws(FlagsError) {
        for key in flags.keys.sorted() {
            guard let flag = flags[key] else { continue }
            if let missing = flag.references.sorted().first(where: { evaluators[$0] == nil }) {
                throw .missingEvaluator(flag: key, evaluator: missing)
            }
        }
        for name in evaluators.keys.sorted() {
            var names: Set<String> = []
            FlagDefinition.collectReferences(evaluators[name] ?? .null, into: &names)
            if let missing = names.sorted().first(where: { evaluators[$0] == nil }) {
                throw .missingEvaluator(flag: "$evaluators." + name, evaluator: missing)
            }
        }
    }
}
#endif
