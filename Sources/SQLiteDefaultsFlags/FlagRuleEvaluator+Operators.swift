#if Flags
import Foundation

extension FlagRuleEvaluator {
    typealias C = JsonLogicCoercion

    func operate(_ op: FlagOperator, _ arguments: [FlagRuleNode], scope: FlagValue?, references: Int) throws(FlagRuleFailure) -> FlagValue {
        switch op {
        case .ifThenElse, .ternary:
            var index = 0
            while index + 1 < arguments.count {
                if C.truthy(try evaluate(arguments[index], scope: scope, references: references)) {
                    return try evaluate(arguments[index + 1], scope: scope, references: references)
                }
                index += 2
            }
            return index < arguments.count ? try evaluate(arguments[index], scope: scope, references: references) : .null
        case .and, .or:
            var current = FlagValue.null
            for argument in arguments {
                current = try evaluate(argument, scope: scope, references: references)
                if C.truthy(current) != (op == .and) { return current }
            }
            return current
        case .map, .filter, .all, .none, .some, .reduce:
            return try iterate(op, arguments, scope: scope, references: references)
        case .equal, .strictEqual, .notEqual, .strictNotEqual, .greater, .greaterOrEqual, .in, .startsWith, .endsWith, .not, .truthy:
            // The common comparisons, without an array of operands (they read two at most;
            // `starts_with` and `ends_with` check how many were given).
            let a = try arguments.first.map { node throws(FlagRuleFailure) in try evaluate(node, scope: scope, references: references) } ?? .null
            let b = arguments.count > 1 ? try evaluate(arguments[1], scope: scope, references: references) : FlagValue.null
            return binary(op, a, b, count: arguments.count)
        default:
            var values: [FlagValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try evaluate(argument, scope: scope, references: references)) }
            return apply(op, values, scope: scope)
        }
    }

    /// The array operators: the first operand is the array, the second a rule evaluated with
    /// each element as its data (`reduce`: `current` and `accumulator`).
    private func iterate(_ op: FlagOperator, _ arguments: [FlagRuleNode], scope: FlagValue?, references: Int) throws(FlagRuleFailure) -> FlagValue {
        let source = try arguments.first.map { node throws(FlagRuleFailure) in try evaluate(node, scope: scope, references: references) } ?? .null
        let elements: [FlagValue]?
        if case .array(let array) = source { elements = array } else { elements = nil }
        let body = arguments.count > 1 ? arguments[1] : FlagRuleNode.literal(.null)
        switch op {
        case .map:
            var out: [FlagValue] = []
            for element in elements ?? [] { out.append(try evaluate(body, scope: element, references: references)) }
            return .array(out)
        case .filter, .none, .some:
            var out: [FlagValue] = []
            for element in elements ?? [] where C.truthy(try evaluate(body, scope: element, references: references)) {
                out.append(element)
            }
            if op == .none { return .bool(out.isEmpty) }
            if op == .some { return .bool(!out.isEmpty) }
            return .array(out)
        case .all:
            guard let elements, !elements.isEmpty else { return .bool(false) }
            for element in elements where !C.truthy(try evaluate(body, scope: element, references: references)) {
                return .bool(false)
            }
            return .bool(true)
        default: // reduce
            var accumulator = arguments.count > 2 ? try evaluate(arguments[2], scope: scope, references: references) : .null
            guard let elements else { return accumulator }
            for element in elements {
                accumulator = try evaluate(body, scope: .object(["current": element, "accumulator": accumulator]), references: references)
            }
            return accumulator
        }
    }

    /// The comparisons and string tests of two operands (`count` says how many were given).
    func binary(_ op: FlagOperator, _ a: FlagValue, _ b: FlagValue, count: Int) -> FlagValue {
        switch op {
        case .equal: return .bool(C.looseEquals(a, b))
        case .strictEqual: return .bool(C.strictEquals(a, b))
        case .notEqual: return .bool(!C.looseEquals(a, b))
        case .strictNotEqual: return .bool(!C.strictEquals(a, b))
        case .not: return .bool(!C.truthy(a))
        case .truthy: return .bool(C.truthy(a))
        case .greater: return .bool(C.compare(a, b) == .orderedDescending)
        case .greaterOrEqual:
            let order = C.compare(a, b)
            return .bool(order == .orderedDescending || order == .orderedSame)
        case .startsWith, .endsWith:
            guard count == 2, case .string(let text) = a, case .string(let affix) = b else { return .null }
            if op == .startsWith { return .bool(text.utf8.starts(with: affix.utf8)) }
            return .bool(text.utf8.count >= affix.utf8.count && text.utf8.suffix(affix.utf8.count).elementsEqual(affix.utf8))
        default:
            return apply(op, count == 0 ? [] : count == 1 ? [a] : [a, b], scope: nil)
        }
    }

    /// The eager operators, over evaluated operands.
    func apply(_ op: FlagOperator, _ values: [FlagValue], scope: FlagValue?) -> FlagValue {
        let a = values.first ?? .null
        let b = values.count > 1 ? values[1] : FlagValue.null
        switch op {
        case .equal, .strictEqual, .notEqual, .strictNotEqual, .not, .truthy, .greater, .greaterOrEqual, .startsWith, .endsWith:
            return binary(op, a, b, count: values.count)
        case .less, .lessOrEqual:
            let allowed: Set<ComparisonResult> = op == .less ? [.orderedAscending] : [.orderedAscending, .orderedSame]
            guard let first = C.compare(a, b), allowed.contains(first) else { return .bool(false) }
            guard values.count > 2 else { return .bool(true) }
            guard let second = C.compare(b, values[2]) else { return .bool(false) }
            return .bool(allowed.contains(second))
        case .in:
            switch b {
            case .string(let text):
                let needle = C.string(a)
                return .bool(needle.isEmpty || text.utf8.firstRange(of: needle.utf8) != nil)
            case .array(let elements): return .bool(elements.contains { C.strictEquals(a, $0) })
            default: return .bool(false)
            }
        case .cat:
            return .string(values.map { $0 == .null ? "" : C.string($0) }.joined())
        case .substr:
            return .string(Self.substring(C.string(a), start: values.count > 1 ? C.number(b) : 0, length: values.count > 2 ? C.number(values[2]) : nil))
        case .add:
            return C.numberValue(values.reduce(0) { $0 + C.parseFloat($1) })
        case .multiply:
            guard !values.isEmpty else { return .null }
            return C.numberValue(values.dropFirst().reduce(C.parseFloat(a)) { $0 * C.parseFloat($1) })
        case .subtract:
            return C.numberValue(values.count < 2 ? -C.number(a) : C.number(a) - C.number(b))
        case .divide:
            return C.numberValue(C.number(a) / C.number(b))
        case .modulo:
            return C.numberValue(C.number(a).truncatingRemainder(dividingBy: C.number(b)))
        case .min, .max:
            guard !values.isEmpty else { return .null }
            let numbers = values.map(C.number)
            if numbers.contains(where: \.isNaN) { return .null }
            return C.numberValue((op == .min ? numbers.min() : numbers.max()) ?? .nan)
        case .variable:
            let found = lookUp(Self.path(of: a), scope: scope)
            return found == .null && values.count > 1 ? b : found
        case .missing:
            return .array(missing(values, scope: scope))
        case .missingSome:
            guard case .array(let keys) = b else { return .array([]) }
            let absent = missing(keys, scope: scope)
            return keys.count - absent.count >= Int(C.number(a)) ? .array([]) : .array(absent)
        case .merge:
            var out: [FlagValue] = []
            for value in values {
                if case .array(let elements) = value { out.append(contentsOf: elements) } else { out.append(value) }
            }
            return .array(out)
        case .log:
            return a
        case .fractional:
            return FractionalOperator.evaluate(values, flagKey: flagKey, targetingKey: context.targetingKey)
        case .semVer:
            return SemanticVersionOperator.evaluate(values)
        case .ifThenElse, .ternary, .and, .or, .map, .filter, .reduce, .all, .none, .some:
            return .null // evaluated lazily by operate(_:_:scope:references:)
        }
    }

    /// `missing`: the keys (its operands, or the array that is its first operand) whose value
    /// is null or an empty string.
    private func missing(_ values: [FlagValue], scope: FlagValue?) -> [FlagValue] {
        var keys = values
        if case .array(let first)? = values.first { keys = first }
        return keys.filter { key in
            let found = lookUp(Self.path(of: key), scope: scope)
            return found == .null || found == .string("")
        }
    }

    /// JavaScript's `substr` (UTF-16 code units; a negative start counts from the end, a
    /// negative length leaves that many units off the end), as json-logic-js applies it.
    static func substring(_ text: String, start: Double, length: Double?) -> String {
        let units = Array(text.utf16)
        let count = units.count
        let startNumber = start.isNaN ? 0 : start
        var from = startNumber < 0 ? max(count + Int(max(startNumber, -Double(count))), 0) : min(Int(min(startNumber, Double(count))), count)
        var to = count
        if let length, !length.isNaN {
            if length < 0 {
                to = max(count + Int(max(length, -Double(count))), from)
            } else {
                to = min(from + Int(min(length, Double(count))), count)
            }
        }
        if to < from { to = from }
        from = min(from, count)
        return String(decoding: units[from..<to], as: UTF16.self)
    }
}
#endif
