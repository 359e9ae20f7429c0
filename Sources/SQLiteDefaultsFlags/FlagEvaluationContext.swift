#if Flags
/// What a flag is evaluated for: a targeting key (the user, the session, the tenant) and
/// attributes — the shape of OpenFeature's evaluation context (`OpenFeatureEvaluationContext`
/// in swift-open-feature), so that a provider maps one onto the other member for member.
///
/// In a rule the attributes are JsonLogic's data (`{"var": "email"}`), with `targetingKey`
/// and `$flagd` (`flagKey`, `timestamp`) beside them; as in flagd, those two names are the
/// evaluator's own and hide attributes of the same names.
///
/// ```swift
/// let context = FlagEvaluationContext(targetingKey: "user-42", attributes: ["email": "a@b.io", "age": 31])
/// ```
public struct FlagEvaluationContext: Sendable, Hashable {
    /// The key `fractional` buckets by in its shorthand form; `nil` when there is none.
    public var targetingKey: String?
    /// Any JSON values: strings, numbers, booleans, arrays, objects.
    public var attributes: [String: FlagValue]

    /// A context with a targeting key and attributes (both optional).
    public init(targetingKey: String? = nil, attributes: [String: FlagValue] = [:]) {
        self.targetingKey = targetingKey
        self.attributes = attributes
    }

    /// Reads a context from a JSON object, as `prefs flags eval --context` takes it: a string
    /// `targetingKey` member is the targeting key, every other member an attribute.
    ///
    /// - Throws: ``FlagsError`` `.invalidJSON` when the text is not JSON or not an object.
    public init(json: String) throws(FlagsError) {
        guard case .object(var members) = try FlagJSONParser.parse(json) else {
            throw .invalidJSON("a context is a JSON object")
        }
        var key: String?
        if case .string(let given)? = members["targetingKey"] {
            key = given
            members["targetingKey"] = nil
        }
        self.init(targetingKey: key, attributes: members)
    }
}
#endif
