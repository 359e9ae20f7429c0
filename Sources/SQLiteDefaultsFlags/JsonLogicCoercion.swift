#if Flags
import Foundation

/// JavaScript's conversions, which JsonLogic's operators apply (json-logic-js is its
/// reference): truthiness, `ToNumber`, `String(x)`, `parseFloat`, `==` and `<`.
enum JsonLogicCoercion {
    /// JsonLogic's truthiness: JavaScript's, except that an empty array is false.
    static func truthy(_ value: FlagValue) -> Bool {
        switch value {
        case .null: false
        case .bool(let flag): flag
        case .integer(let number): number != 0
        case .double(let number): number != 0 && !number.isNaN
        case .string(let text): !text.isEmpty
        case .array(let elements): !elements.isEmpty
        case .object: true
        }
    }

    /// `ToNumber(x)`: NaN where JavaScript gives NaN.
    static func number(_ value: FlagValue) -> Double {
        switch value {
        case .null: 0
        case .bool(let flag): flag ? 1 : 0
        case .integer(let number): Double(number)
        case .double(let number): number
        case .string(let text): number(fromString: text)
        case .array: number(fromString: string(value))
        case .object: .nan
        }
    }

    static func number(fromString text: String) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return 0 }
        switch trimmed {
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        let lower = trimmed.lowercased()
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where lower.hasPrefix(prefix) {
            return UInt64(lower.dropFirst(2), radix: radix).map(Double.init) ?? .nan
        }
        // Swift also reads "nan", "inf" and hexadecimal floats, which JavaScript does not.
        guard trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return .nan }
        return Double(trimmed) ?? .nan
    }

    /// `parseFloat(x)`: the longest decimal prefix of `String(x)`, as `+` and `*` read operands.
    static func parseFloat(_ value: FlagValue) -> Double {
        switch value {
        case .integer(let number): return Double(number)
        case .double(let number): return number
        default: break
        }
        let text = Substring(string(value)).drop(while: { $0.isWhitespace })
        if text.hasPrefix("Infinity") || text.hasPrefix("+Infinity") { return .infinity }
        if text.hasPrefix("-Infinity") { return -.infinity }
        var best = Double.nan
        var sawDigit = false
        var sawPoint = false
        var sawExponent = false
        var index = text.startIndex
        if index < text.endIndex, text[index] == "+" || text[index] == "-" { index = text.index(after: index) }
        while index < text.endIndex {
            let character = text[index]
            if character.isASCII, character.isNumber {
                sawDigit = true
            } else if character == ".", !sawPoint, !sawExponent {
                sawPoint = true
            } else if character == "e" || character == "E", sawDigit, !sawExponent {
                sawExponent = true
                let next = text.index(after: index)
                if next < text.endIndex, text[next] == "+" || text[next] == "-" { index = next }
            } else {
                break
            }
            index = text.index(after: index)
            if sawDigit, let parsed = Double(text[text.startIndex..<index]) { best = parsed }
        }
        return best
    }

    /// `String(x)`: arrays join their elements with commas (null as nothing), objects read
    /// `[object Object]`, numbers as JavaScript prints them.
    static func string(_ value: FlagValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .double(let number): FlagJSONWriter.javaScriptString(number)
        case .string(let text): text
        case .array(let elements): elements.map { $0 == .null ? "" : string($0) }.joined(separator: ",")
        case .object: "[object Object]"
        }
    }

    /// `a === b`: same type and value; arrays and objects are never equal (JavaScript compares
    /// their identity, and no two operands here share one).
    static func strictEquals(_ lhs: FlagValue, _ rhs: FlagValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.integer, .double), (.double, .integer), (.double, .double): return number(lhs) == number(rhs)
        default: return false
        }
    }

    /// `a == b`, JavaScript's abstract equality.
    static func looseEquals(_ lhs: FlagValue, _ rhs: FlagValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.bool, .bool), (.string, .string), (.integer, .integer): return strictEquals(lhs, rhs)
        case (.array, .array), (.object, .object), (.array, .object), (.object, .array): return false
        case (.bool, _): return looseEquals(.double(number(lhs)), rhs)
        case (_, .bool): return looseEquals(lhs, .double(number(rhs)))
        case (.array, _), (.object, _): return looseEquals(.string(string(lhs)), rhs)
        case (_, .array), (_, .object): return looseEquals(lhs, .string(string(rhs)))
        default: return number(lhs) == number(rhs)
        }
    }

    /// JavaScript's `<` between two operands: strings compare by UTF-16 code units, anything
    /// else as numbers; `nil` when a NaN makes every comparison false.
    static func compare(_ lhs: FlagValue, _ rhs: FlagValue) -> ComparisonResult? {
        let left = primitive(lhs), right = primitive(rhs)
        if case .string(let a) = left, case .string(let b) = right {
            if a.utf16.elementsEqual(b.utf16) { return .orderedSame }
            return a.utf16.lexicographicallyPrecedes(b.utf16) ? .orderedAscending : .orderedDescending
        }
        let a = number(left), b = number(right)
        if a.isNaN || b.isNaN { return nil }
        return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    private static func primitive(_ value: FlagValue) -> FlagValue {
        switch value {
        case .array, .object: .string(string(value))
        default: value
        }
    }

    /// A number result as JsonLogic hands it on: an integer when it is one, so that a weight
    /// computed by `*` stays an integer weight.
    static func numberValue(_ number: Double) -> FlagValue {
        if number.rounded() == number, let exact = Int64(exactly: number) { return .integer(exact) }
        return .double(number)
    }
}
#endif
