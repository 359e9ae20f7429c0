/// Strict JSON text (RFC 8259), judged exactly as the schema's validator in SQL judges it
/// (trigger `defaults_json_check`, Migrations/0010): the one definition of "valid JSON" for a
/// `json` key on every SQLite version, in both languages, kept equal by a differential test.
///
/// Stricter than SQLite's own parsers, on purpose: `json_valid` nests 2,000 levels before 3.45 and
/// 1,000 after, and from 3.42 `json_each` also takes JSON5 (comments, single quotes, a leading
/// byte-order mark, hexadecimal numbers). Here: RFC 8259 only, at most ``maximumDepth`` levels,
/// no NUL byte anywhere.
enum StrictJSON {
    /// The deepest nesting of arrays and objects accepted, at every door (the schema, `prefs`,
    /// the console, the fleet): what SQLite's own JSON functions take from 3.45 on. (Foundation's
    /// JSON decoder stops at 512, so a `Codable` value nested deeper reads as `.decodingFailed`.)
    static let maximumDepth = 1_000

    /// Whether `bytes` are one JSON value with optional surrounding white space.
    static func isValid<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var parser = Parser(bytes: Array(bytes))
        return parser.document()
    }

    /// Whether `text` is.
    static func isValid(_ text: String) -> Bool {
        isValid(text.utf8)
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var depth = 0

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func document() -> Bool {
            skipSpace()
            guard value() else { return false }
            skipSpace()
            return index == bytes.count
        }

        private mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        private mutating func value() -> Bool {
            guard let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), isObject: true)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), isObject: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            case UInt8(ascii: "t"): return literal(Self.trueBytes)
            case UInt8(ascii: "f"): return literal(Self.falseBytes)
            case UInt8(ascii: "n"): return literal(Self.nullBytes)
            default: return false
            }
        }

        private mutating func container(close: UInt8, isObject: Bool) -> Bool {
            guard depth < StrictJSON.maximumDepth else { return false }
            depth += 1
            defer { depth -= 1 }
            index += 1
            skipSpace()
            if current == close { index += 1; return true }
            while true {
                if isObject {
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                    skipSpace()
                }
                guard value() else { return false }
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; skipSpace(); continue }
                guard current == close else { return false }
                index += 1
                return true
            }
        }

        private mutating func string() -> Bool {
            index += 1  // the opening quote
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case 0x00...0x1F: return false
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return false }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let digit = current, digit.isHexDigit else { return false }
                            index += 1
                        }
                    default: return false
                    }
                default: continue
                }
            }
            return false  // unterminated
        }

        private mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, first.isDigit else { return false }
            index += 1
            if first != UInt8(ascii: "0") { while current?.isDigit == true { index += 1 } }
            if current == UInt8(ascii: ".") {
                index += 1
                guard current?.isDigit == true else { return false }
                while current?.isDigit == true { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard current?.isDigit == true else { return false }
                while current?.isDigit == true { index += 1 }
            }
            return true
        }

        private static let trueBytes: [UInt8] = Array("true".utf8)
        private static let falseBytes: [UInt8] = Array("false".utf8)
        private static let nullBytes: [UInt8] = Array("null".utf8)

        private mutating func literal(_ word: [UInt8]) -> Bool {
            guard bytes.count - index >= word.count, bytes[index..<index + word.count].elementsEqual(word) else { return false }
            index += word.count
            return true
        }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    var isHexDigit: Bool { isDigit || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66) }
}
