import Foundation
import SQLiteDefaults

/// `write --type`: how a command-line value is parsed and which SQLite storage class it gets.
///
/// The classes are the ones the library itself uses for these Swift types, so a value
/// written here reads back through a typed key (`DefaultsKey<Bool>`, `DefaultsKey<Date>`, …).
///
/// | type | accepts | stored as |
/// | --- | --- | --- |
/// | `string` (default) | anything | TEXT, as given |
/// | `bool` | `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0` (any case) | INTEGER 1 or 0 |
/// | `int` | a whole number in the 64-bit range | INTEGER |
/// | `double` | a finite decimal number (`2`, `0.5`, `1e-3`) | REAL |
/// | `json` | any JSON value | TEXT, the JSON as given (outer whitespace trimmed) |
/// | `data` | base64 | BLOB |
/// | `date` | ISO 8601 (`2024-05-01T10:30:00Z`, `…00.250+02:00`, `2024-05-01`) or `now` | REAL, seconds since 1970 |
/// | `url` | an absolute URL (`https://…`, `file:///…`) | TEXT |
///
/// The eight words are the library's own ``DefaultsValueKind`` (the declared keys' kinds):
/// one vocabulary, so the CLI and `defaults_schema` cannot drift apart.
package typealias ValueType = DefaultsValueKind

extension DefaultsValueKind {
    /// Parses `text` as this type.
    /// - Throws: ``FormatError`` saying what the type expects.
    package func parse(_ text: String) throws(FormatError) -> SQLiteValue {
        switch self {
        case .string:
            return .text(text)

        case .bool:
            switch text.lowercased() {
            case "true", "yes", "on", "1": return .integer(1)
            case "false", "no", "off", "0": return .integer(0)
            default: throw .invalidValue(text, type: self, "use true or false (also yes/no, on/off, 1/0)")
            }

        case .int:
            guard let number = Int64(text) else {
                throw .invalidValue(text, type: self, "expected a whole number from \(Int64.min) to \(Int64.max)")
            }
            return .integer(number)

        case .double:
            guard let number = Double(text), !text.contains(where: \.isWhitespace) else {
                throw .invalidValue(text, type: self, "expected a decimal number such as 0.5 or 1e-3")
            }
            guard number.isFinite else {
                throw .invalidValue(text, type: self, "infinity and NaN cannot be stored")
            }
            return .real(number)

        case .json:
            do {
                _ = try JSONDocument(parsing: text, wrapsValues: false)
            } catch {
                throw .invalidValue(text, type: self, error.description)
            }
            return .text(text.trimmingJSONWhitespace())

        case .data:
            guard let data = Data(base64Encoded: text) else {
                throw .invalidValue(text, type: self, "expected base64, such as 3q2+7w==")
            }
            return .blob(data)

        case .date:
            if text.lowercased() == "now" {
                return .real(Date().timeIntervalSince1970)
            }
            switch ISO8601.parse(text) {
            case .success(let seconds): return .real(seconds)
            case .failure(let failure): throw .invalidValue(text, type: self, failure.reason)
            }

        case .url:
            guard !text.contains(where: { $0.isWhitespace }), let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
                throw .invalidValue(text, type: self, "expected an absolute URL such as https://example.com/path")
            }
            return .text(text)
        }
    }

    /// The types, for help text: `bool|int|double|…`.
    package static var allNames: String { allCases.map(\.rawValue).joined(separator: "|") }
}

extension String {
    /// The text without the whitespace JSON ignores around a value (space, tab, CR, LF).
    package func trimmingJSONWhitespace() -> String {
        let isJSONWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isJSONWhitespace($0) }),
              let last = lastIndex(where: { !isJSONWhitespace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
