import Foundation
import SQLiteDefaults

/// How stored values look on the command line.
package enum ValueFormatting {
    /// The value as `read` prints it: text that `write` takes back with the matching `--type`.
    ///
    /// INTEGER → `42` (`--type int`), REAL → shortest text that reads back as the same
    /// double, always with a `.` or exponent: `2.0`, `0.1`, `1e-05` (`--type double`),
    /// TEXT → as stored (`--type string`, or `json`/`url` for such text), BLOB → base64
    /// (`--type data`), NULL → an empty line.
    package static func readRepresentation(_ value: SQLiteValue) -> String {
        switch value {
        case .null: ""
        case .integer(let number): String(number)
        case .real(let number): realText(number)
        case .text(let text): text
        case .invalidUTF8Text(let bytes): escaped(invalidUTF8: bytes)
        case .blob(let data): data.base64EncodedString()
        }
    }

    /// TEXT whose bytes are not valid UTF-8, on one line: the valid parts as ``escaped(_:)``
    /// writes them, each invalid byte as `\x{FF}` (a backslash in the text is doubled, so the
    /// escape is never ambiguous). Nothing is replaced silently.
    package static func escaped(invalidUTF8 bytes: Data) -> String {
        let bytes = Array(bytes)
        var result = ""
        var index = 0
        outer: while index < bytes.count {
            // The shortest valid scalar starting here (UTF-8 scalars are 1–4 bytes).
            for length in 1...4 where index + length <= bytes.count {
                if let scalar = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                    result += escaped(scalar)
                    index += length
                    continue outer
                }
            }
            let hex = String(bytes[index], radix: 16, uppercase: true)
            result += "\\x{" + (hex.count == 1 ? "0" : "") + hex + "}"
            index += 1
        }
        return result
    }

    /// The value on one line for `list` and `watch`: like ``readRepresentation(_:)`` with
    /// control characters escaped (`\n`, `\t`, `\u{1B}`) and backslashes doubled, so one
    /// value is always one line and the line says exactly what is stored.
    package static func displayRepresentation(_ value: SQLiteValue) -> String {
        switch value {
        case .text(let text): escaped(text)
        default: readRepresentation(value)
        }
    }

    /// The value as ``readRepresentation(_:)`` prints it, but a key declared `bool` shows its
    /// INTEGER 0 or 1 as `false` or `true`, the words an operator reads (and `write` takes back).
    /// Other values, and every undeclared key, print as they are stored.
    package static func readRepresentation(_ value: SQLiteValue, declaredType: DefaultsValueKind?) -> String {
        boolWord(value, declaredType: declaredType) ?? readRepresentation(value)
    }

    /// The value as ``displayRepresentation(_:)`` shows it, with a declared `bool`'s 0 or 1 as
    /// `false` or `true` (see ``readRepresentation(_:declaredType:)``).
    package static func displayRepresentation(_ value: SQLiteValue, declaredType: DefaultsValueKind?) -> String {
        boolWord(value, declaredType: declaredType) ?? displayRepresentation(value)
    }

    private static func boolWord(_ value: SQLiteValue, declaredType: DefaultsValueKind?) -> String? {
        guard declaredType == .bool, case .integer(let number) = value else { return nil }
        switch number {
        case 0: return "false"
        case 1: return "true"
        default: return nil  // not a bool after all (the database refuses it): shown as stored
        }
    }

    /// Shortest decimal text that parses back to exactly `number`, marked as a REAL by a
    /// decimal point or an exponent (`2.0`, not `2`). Swift's own `description` is already
    /// shortest-round-trip; only non-finite values need words.
    package static func realText(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-inf" : "inf" }
        let text = number.description
        if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return text }
        return text + ".0"
    }

    /// A key or value in single quotes for messages, with control characters escaped.
    package static func quoted(_ text: String) -> String {
        let shown = text.count > 200 ? String(text.prefix(200)) + "…" : text
        return "'" + escaped(shown) + "'"
    }

    /// `text` with backslashes doubled and control characters written as escapes.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || scalar == "\u{2028}" || scalar == "\u{2029}":
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The error on one line, for `prefs: <message>`.
    package static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }
}
