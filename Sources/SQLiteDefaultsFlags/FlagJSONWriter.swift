#if Flags
import Foundation

/// Writes ``FlagValue``s as compact JSON with sorted object members, and numbers as
/// JavaScript prints them (JsonLogic's `cat` and a variant named by a number use that form).
enum FlagJSONWriter {
    static func write(_ value: FlagValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .integer(let number): out += String(number)
        case .double(let number): out += number.isFinite ? javaScriptString(number) : "null"
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            out += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { out += "," }
                write(element, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (offset, name) in members.keys.sorted().enumerated() {
                if offset > 0 { out += "," }
                writeString(name, into: &out)
                out += ":"
                write(members[name] ?? .null, into: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `Number.prototype.toString()` for the values JSON can hold: integral values below 1e21
    /// without a fraction, others in the shortest form that reads back the same.
    static func javaScriptString(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == 0 { return "0" }
        if number.rounded() == number, abs(number) < 1e21 {
            if let exact = Int64(exactly: number) { return String(exact) }
            return String(format: "%.0f", number)
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text = text.replacingOccurrences(of: "e-0", with: "e-")
        return text
    }
}

#endif
