#if Flags
/// A targeting rule compiled once from its JSON: JsonLogic with every standard operator and
/// flagd's `fractional`, `sem_ver`, `starts_with`, `ends_with` and `$ref`.
///
/// Compiling checks the whole rule, so an unknown operator is found when a flag is read, not
/// at the first evaluation that reaches it; such a rule evaluates to `PARSE_ERROR`, as flagd's does.
///
/// ```swift
/// let rule = try FlagRule(json: #"{"in": [{"var": "email"}, ["a@x.io"]]}"#)
/// ```
public struct FlagRule: Sendable {
    /// How deeply operations may nest in one rule: 128 levels (hand-written rules nest a few;
    /// the limit keeps evaluation's recursion far from the stack's end on any thread).
    public static let maximumDepth = 128
    /// How many nodes one rule may hold: 100,000.
    public static let maximumNodes = 100_000

    let root: FlagRuleNode
    /// The evaluators the rule names with `$ref`, sorted.
    public let references: [String]

    /// Compiles a rule from its JSON value.
    ///
    /// - Throws: ``FlagsError`` `.invalidRule` for an unknown operator or a malformed
    ///   operation, `.ruleTooDeep`, `.ruleTooLarge`.
    public init(_ value: FlagValue) throws(FlagsError) {
        var compiler = FlagRuleCompiler()
        root = try compiler.compile(value, depth: 0)
        references = compiler.references.sorted()
    }

    /// Compiles a rule from its JSON text.
    ///
    /// - Throws: ``FlagsError`` `.invalidJSON`, `.tooDeep`, and what ``init(_:)`` throws.
    public init(json: String) throws(FlagsError) {
        try self.init(FlagJSONParser.parse(json))
    }
}

/// One node of a compiled rule.
indirect enum FlagRuleNode: Sendable {
    /// A value that is data, not logic.
    case literal(FlagValue)
    /// An array whose elements are rules (JsonLogic evaluates each).
    case array([FlagRuleNode])
    /// `{"var": "a.b"}` with a constant path, split once.
    case variable(path: [String], fallback: FlagRuleNode?)
    /// `{"$ref": "name"}`: a shared evaluator, looked up when evaluated.
    case reference(String)
    /// Any other operation.
    case operation(FlagOperator, [FlagRuleNode])
}

/// The operators a rule may use.
enum FlagOperator: String, Sendable, CaseIterable {
    case equal = "==", strictEqual = "===", notEqual = "!=", strictNotEqual = "!=="
    case not = "!", truthy = "!!", and, or, ifThenElse = "if", ternary = "?:"
    case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case `in`, cat, substr
    case add = "+", subtract = "-", multiply = "*", divide = "/", modulo = "%", min, max
    case variable = "var", missing, missingSome = "missing_some", merge, log
    case map, filter, reduce, all, none, some
    case fractional, semVer = "sem_ver", startsWith = "starts_with", endsWith = "ends_with"
}

struct FlagRuleCompiler {
    var references: Set<String> = []
    var nodes = 0

    mutating func compile(_ value: FlagValue, depth: Int) throws(FlagsError) -> FlagRuleNode {
        nodes += 1
        guard nodes <= FlagRule.maximumNodes else { throw .ruleTooLarge(FlagRule.maximumNodes) }
        guard depth <= FlagRule.maximumDepth else { throw .ruleTooDeep(FlagRule.maximumDepth) }
        switch value {
        case .array(let elements):
            var compiled: [FlagRuleNode] = []
            compiled.reserveCapacity(elements.count)
            for element in elements { compiled.append(try compile(element, depth: depth + 1)) }
            // An array of data only is data: built once, not at every evaluation.
            if compiled.allSatisfy({ if case .literal = $0 { true } else { false } }) { return .literal(value) }
            return .array(compiled)
        case .object(let members) where members.count == 1:
            guard let (name, argument) = members.first else { return .literal(value) }
            return try operation(name, argument, depth: depth)
        default:
            // Scalars, and objects of zero or several members, are data (JsonLogic's `is_logic`).
            return .literal(value)
        }
    }

    private mutating func operation(_ name: String, _ argument: FlagValue, depth: Int) throws(FlagsError) -> FlagRuleNode {
        if name == "$ref" {
            guard case .string(let evaluator) = argument else { throw .invalidRule("$ref takes an evaluator's name") }
            references.insert(evaluator)
            return .reference(evaluator)
        }
        guard let op = FlagOperator(rawValue: name) else { throw .invalidRule("unknown operator \"\(name)\"") }
        let arguments: [FlagValue]
        if case .array(let elements) = argument { arguments = elements } else { arguments = [argument] }
        var compiled: [FlagRuleNode] = []
        compiled.reserveCapacity(arguments.count)
        for element in arguments { compiled.append(try compile(element, depth: depth + 1)) }
        if op == .variable, let constant = Self.constantPath(arguments.first) {
            return .variable(path: constant, fallback: compiled.count > 1 ? compiled[1] : nil)
        }
        return .operation(op, compiled)
    }

    /// A `var` path known before evaluation: a string, a number or no argument at all.
    static func constantPath(_ argument: FlagValue?) -> [String]? {
        switch argument {
        case nil, .null: return []
        case .string(let path): return path.isEmpty ? [] : path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        case .integer(let index): return [String(index)]
        default: return nil
        }
    }
}
#endif

#if Flags
extension FlagRule {
    /// Evaluates the rule alone (no shared evaluators: a `$ref` fails), as a flag's targeting
    /// would for `flagKey`: what a rule answers for a context, for tests and tools.
    ///
    /// ```swift
    /// try FlagRule(json: #"{"cat": ["a", {"var": "n"}]}"#).evaluate(FlagEvaluationContext(attributes: ["n": 1]))  // "a1"
    /// ```
    ///
    /// - Throws: ``FlagsError`` `.invalidRule` when evaluation fails (a `$ref`).
    public func evaluate(_ context: FlagEvaluationContext, flagKey: String = "") throws(FlagsError) -> FlagValue {
        do {
            return try FlagRuleEvaluator(flagKey: flagKey, context: context, lookup: NoEvaluators()).evaluate(self)
        } catch {
            throw .invalidRule(error.message)
        }
    }
}

/// The lookup of a rule evaluated on its own: there are no shared evaluators.
private struct NoEvaluators: FlagEvaluatorLookup {
    func evaluator(named name: String) throws(FlagRuleFailure) -> FlagRule? { nil }
}
#endif
