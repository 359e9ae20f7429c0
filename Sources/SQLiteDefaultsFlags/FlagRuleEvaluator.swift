#if Flags
import Foundation

/// Why a rule could not be evaluated: flagd answers these with `PARSE_ERROR`.
struct FlagRuleFailure: Error {
    let message: String
}

/// Looks up a shared evaluator by name, for `$ref`.
protocol FlagEvaluatorLookup {
    /// The compiled evaluator, `nil` when there is none; throws when it exists but cannot be compiled.
    func evaluator(named name: String) throws(FlagRuleFailure) -> FlagRule?
}

/// Evaluates a compiled rule for one flag and one context. Operands are evaluated before the
/// operator (as JsonLogic does) except for the lazy ones: `if`, `?:`, `and`, `or` and the
/// array operators, which evaluate their rule once per element.
struct FlagRuleEvaluator<Lookup: FlagEvaluatorLookup> {
    /// How many `$ref`s may be followed inside one another (a cycle ends here).
    static var maximumReferenceDepth: Int { 32 }

    let flagKey: String
    let context: FlagEvaluationContext
    let lookup: Lookup

    func evaluate(_ rule: FlagRule) throws(FlagRuleFailure) -> FlagValue {
        try evaluate(rule.root, scope: nil, references: 0)
    }

    /// `scope` is the data of `map`, `filter`, `reduce`, `all`, `none` and `some` (their
    /// element), `nil` for the evaluation context itself.
    func evaluate(_ node: FlagRuleNode, scope: FlagValue?, references: Int) throws(FlagRuleFailure) -> FlagValue {
        switch node {
        case .literal(let value):
            return value
        case .array(let elements):
            var values: [FlagValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try evaluate(element, scope: scope, references: references)) }
            return .array(values)
        case .variable(let path, let fallback):
            let found = lookUp(path, scope: scope)
            if found == .null, let fallback { return try evaluate(fallback, scope: scope, references: references) }
            return found
        case .reference(let name):
            guard references < Self.maximumReferenceDepth else {
                throw FlagRuleFailure(message: "$ref nests deeper than \(Self.maximumReferenceDepth) evaluators")
            }
            guard let rule = try lookup.evaluator(named: name) else {
                throw FlagRuleFailure(message: "$ref to a missing evaluator \"\(name)\"")
            }
            return try evaluate(rule.root, scope: scope, references: references + 1)
        case .operation(let op, let arguments):
            return try operate(op, arguments, scope: scope, references: references)
        }
    }

    // MARK: Data

    /// The context as JsonLogic's data: the attributes, `targetingKey` and `$flagd`
    /// (`flagKey`, `timestamp`), the last two replacing attributes of those names as flagd does.
    func rootMember(_ name: String) -> FlagValue? {
        switch name {
        case "targetingKey": return context.targetingKey.map(FlagValue.string) ?? .null
        case "$flagd": return flagdProperties
        default: return context.attributes[name]
        }
    }

    var flagdProperties: FlagValue {
        .object(["flagKey": .string(flagKey), "timestamp": .integer(Int64(Date().timeIntervalSince1970))])
    }

    var rootValue: FlagValue {
        var members = context.attributes
        members["targetingKey"] = rootMember("targetingKey")
        members["$flagd"] = flagdProperties
        return .object(members)
    }

    func lookUp(_ path: [String], scope: FlagValue?) -> FlagValue {
        guard let first = path.first else { return scope ?? rootValue }
        var current: FlagValue
        if let scope {
            guard let member = Self.member(first, of: scope) else { return .null }
            current = member
        } else {
            guard let member = rootMember(first) else { return .null }
            current = member
        }
        for component in path.dropFirst() {
            guard let member = Self.member(component, of: current) else { return .null }
            current = member
        }
        return current
    }

    static func member(_ name: String, of value: FlagValue) -> FlagValue? {
        switch value {
        case .object(let members): return members[name]
        case .array(let elements):
            guard let index = Int(name), elements.indices.contains(index) else { return nil }
            return elements[index]
        case .string(let text):
            // JavaScript indexes a string by UTF-16 code unit.
            let units = Array(text.utf16)
            guard let index = Int(name), units.indices.contains(index) else { return nil }
            return .string(String(decoding: [units[index]], as: UTF16.self))
        default: return nil
        }
    }

    static func path(of value: FlagValue) -> [String] {
        FlagRuleCompiler.constantPath(value) ?? JsonLogicCoercion.string(value).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}
#endif
