import Foundation
import SQLiteDefaults

/// The JSON that `list --json`, `export`, `read --json` and `watch --json` print and that
/// `import` reads: one object, key → value, lossless for every storage class.
///
/// | stored | JSON | example |
/// | --- | --- | --- |
/// | INTEGER | a number without `.` or exponent | `42` |
/// | REAL | a number with a `.` or an exponent | `2.0`, `0.1`, `1e-05` |
/// | REAL ±infinity | tagged | `{"$real": "Infinity"}`, `{"$real": "-Infinity"}` |
/// | TEXT holding a JSON array or object on one line | that JSON, as stored | `["a","b"]`, `{"name":"Ada"}` |
/// | other TEXT | a string | `"Ada"`, `"42"` |
/// | BLOB | tagged, base64 | `{"$data": "3q2+7w=="}` |
/// | TEXT whose bytes are not valid UTF-8 | tagged, base64 of the exact bytes | `{"$textBytes": "Yf9i"}` |
///
/// An object with exactly one member whose name starts with `$` is a tagged value. A TEXT
/// that would itself read as one is exported as `{"$text": "…"}`, so nothing is ambiguous.
///
/// `import` also takes, for hand-written files: `true`/`false` → INTEGER 1/0 (how `Bool` is
/// stored), `null` → remove the key, `{"$real": 2}` → REAL 2.0. It refuses numbers outside
/// the 64-bit integer or double range, unknown `$` tags, and base64 that does not decode.
///
/// Keys are JSON strings, so a key whose bytes are not valid UTF-8 has no form here: `export`
/// refuses such a database, naming the key's bytes, rather than write a changed key.
package enum ExportFormat {
    // MARK: Encoding

    /// One value as compact JSON, on one line.
    package static func encode(_ value: SQLiteValue) -> String {
        switch value {
        case .null:
            return "null"
        case .integer(let number):
            return String(number)
        case .real(let number):
            guard number.isFinite else {
                return tagged("$real", quote(number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity"))
            }
            return ValueFormatting.realText(number)
        case .text(let text):
            if embedsAsJSON(text) { return text }
            if isTagged(text) { return tagged("$text", quote(text)) }
            return quote(text)
        case .invalidUTF8Text(let bytes):
            return tagged("$textBytes", quote(bytes.base64EncodedString()))
        case .blob(let data):
            return tagged("$data", quote(data.base64EncodedString()))
        }
    }

    /// Key → value pairs as one JSON object, one member per line (`{}` when empty).
    package static func encodeObject(_ entries: [(key: String, value: SQLiteValue)]) -> String {
        guard !entries.isEmpty else { return "{}" }
        let members = entries.map { "  " + quote($0.key) + ": " + encode($0.value) }
        return "{\n" + members.joined(separator: ",\n") + "\n}"
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped,
    /// everything else as UTF-8.
    package static func quote(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20 || scalar == "\u{2028}" || scalar == "\u{2029}":
                let hex = String(scalar.value, radix: 16, uppercase: false)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Whether TEXT is exported as the JSON it holds rather than as a string: an array or
    /// object, with nothing around it, on one line (so `watch --json` stays one line per
    /// change), that is not itself a tagged value.
    package static func embedsAsJSON(_ text: String) -> Bool {
        guard let first = text.utf8.first, let last = text.utf8.last,
              (first == UInt8(ascii: "[") && last == UInt8(ascii: "]")) || (first == UInt8(ascii: "{") && last == UInt8(ascii: "}")),
              !text.utf8.contains(0x0A), !text.utf8.contains(0x0D),
              let document = try? JSONDocument(parsing: text, wrapsValues: false)
        else { return false }
        return tag(of: document.root) == nil
    }

    private static func isTagged(_ text: String) -> Bool {
        guard let document = try? JSONDocument(parsing: text, wrapsValues: false) else { return false }
        return tag(of: document.root) != nil
    }

    private static func tagged(_ tag: String, _ json: String) -> String {
        "{" + quote(tag) + ": " + json + "}"
    }

    /// The tag and its value when `node` is an object with exactly one `$`-named member.
    private static func tag(of node: JSONDocument.Node) -> JSONDocument.Member? {
        guard case .object(let members, _) = node, members.count == 1, members[0].name.hasPrefix("$") else { return nil }
        return members[0]
    }

    // MARK: Decoding

    /// The key → value pairs of an export file, in file order; a nil value removes the key.
    /// - Throws: ``FormatError`` when the document is not an object, repeats a key, has an
    ///   empty key, or holds a value with no storage class.
    package static func decodeObject(_ document: JSONDocument) throws(FormatError) -> [(key: String, value: SQLiteValue?)] {
        guard case .object(let members, _) = document.root else {
            throw FormatError("expected one JSON object mapping keys to values, found \(kind(of: document.root))")
        }
        // By bytes, as SQLite compares keys: Swift's `==` equates canonically equivalent
        // strings, so "é" (U+00E9) and "e" + U+0301 — two keys in the store, both in its
        // export — would be refused as one key named twice.
        var seen = Set<[UInt8]>()
        var entries: [(key: String, value: SQLiteValue?)] = []
        for member in members {
            guard !member.name.isEmpty else { throw FormatError("a key is empty; keys must be non-empty strings") }
            guard member.nameIsExact else {
                throw FormatError("key \(ValueFormatting.quoted(member.name)) has a \\u escape that leaves a UTF-16 surrogate unpaired, which no key can hold")
            }
            guard seen.insert(Array(member.name.utf8)).inserted else {
                throw FormatError("key \(ValueFormatting.quoted(member.name)) appears more than once")
            }
            entries.append((member.name, try decode(member.value, in: document, key: member.name)))
        }
        return entries
    }

    /// One value; nil means "no value" (JSON `null`).
    /// - Throws: ``FormatError`` naming `key` when the value has no storage class.
    package static func decode(_ node: JSONDocument.Node, in document: JSONDocument, key: String) throws(FormatError) -> SQLiteValue? {
        func unsupported(_ reason: String) -> FormatError {
            FormatError("unsupported value for key \(ValueFormatting.quoted(key)): \(reason)")
        }
        switch node {
        case .null:
            return nil
        case .bool(let flag):
            return .integer(flag ? 1 : 0)
        case .string(let text):
            return .text(text)
        case .loneSurrogateString:
            throw unsupported(Self.loneSurrogate)
        case .array(_, let source):
            return .text(document.text(of: source))
        case .number(let lexeme):
            if lexeme.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                guard let number = Double(lexeme), number.isFinite else {
                    throw unsupported("\(lexeme) is outside the range of a double")
                }
                return .real(number)
            }
            guard let number = Int64(lexeme) else {
                throw unsupported("\(lexeme) is outside the 64-bit integer range (write it as \(lexeme).0 for a REAL)")
            }
            return .integer(number)
        case .object(_, let source):
            guard let tag = tag(of: node) else { return .text(document.text(of: source)) }
            switch (tag.name, tag.value) {
            case ("$data", .string(let base64)):
                guard let data = Data(base64Encoded: base64) else { throw unsupported("\"$data\" holds invalid base64") }
                return .blob(data)
            case ("$text", .string(let text)):
                return .text(text)
            case ("$textBytes", .string(let base64)):
                guard let bytes = Data(base64Encoded: base64) else { throw unsupported("\"$textBytes\" holds invalid base64") }
                // Valid UTF-8 is plain TEXT either way; only invalid bytes need the raw case.
                return String(validating: bytes, as: UTF8.self).map(SQLiteValue.text) ?? .invalidUTF8Text(bytes)
            case ("$real", .number(let lexeme)):
                guard let number = Double(lexeme), number.isFinite else {
                    throw unsupported("\(lexeme) is outside the range of a double")
                }
                return .real(number)
            case ("$real", .string("Infinity")):
                return .real(.infinity)
            case ("$real", .string("-Infinity")):
                return .real(-.infinity)
            case ("$data", _), ("$text", _), ("$textBytes", _):
                throw unsupported("\"\(tag.name)\" takes a string")
            case ("$real", _):
                throw unsupported("\"$real\" takes a number, \"Infinity\" or \"-Infinity\"")
            default:
                throw unsupported("unknown tag \(quote(tag.name)) (known: \"$data\", \"$real\", \"$text\", \"$textBytes\")")
            }
        }
    }

    /// Why a string node with an unpaired UTF-16 surrogate is no value: valid JSON, but no TEXT.
    package static let loneSurrogate = "the string has a \\u escape that leaves a UTF-16 surrogate unpaired, which no TEXT value can hold (inside an array or object, as JSON, it can be stored)"

    private static func kind(of node: JSONDocument.Node) -> String {
        switch node {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string, .loneSurrogateString: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
