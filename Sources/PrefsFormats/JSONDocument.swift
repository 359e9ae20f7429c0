import SQLiteDefaults

/// A parsed JSON text, read by hand rather than with Foundation's `JSONSerialization` or
/// `JSONDecoder`, because `import` and `write --type json` need four things those do not give:
///
/// - **Exact source text.** Every number keeps its spelling, so `2` (INTEGER) and `2.0` (REAL)
///   stay different, as SQLite's storage classes are; every array and object keeps the byte
///   range of its source, so JSON stored as TEXT comes back from `import` byte for byte
///   (Foundation would re-serialize it with its own spacing and member order).
/// - **Duplicate keys.** An object's members are kept in source order, repeats included, so
///   ``ExportFormat/decodeObject(_:)`` can refuse a file that names a key twice. Foundation
///   keeps the last of the repeats and drops the others without a word.
/// - **Strictness.** RFC 8259 and nothing more: no comments, no trailing commas, no single
///   quotes, no NaN or Infinity, UTF-8 only, and values nested at most ``maximumDepth`` levels
///   (the library's one limit, which SQLite accepts on every version). (Foundation on Linux, for
///   one, takes `[1, 2,]`.) The package has one JSON grammar, the library's (`StrictJSON`, which
///   a `json` key's triggers walk in SQL): this parser takes the texts it takes, a `\u` escape
///   that leaves a UTF-16 surrogate unpaired included (RFC 8259's grammar allows one). Such a
///   string cannot become a Swift `String` or SQLite TEXT: it is a
///   ``Node/loneSurrogateString(source:)``, and whoever needs it decoded refuses it by name.
/// - **Line and column.** ``JSONSyntaxError`` names the 1-based line and column (in
///   Unicode scalars) of the first problem, where Foundation says "around character N".
///
/// ```swift
/// let document = try JSONDocument(parsing: #"{"a": [1, 2.0]}"#)
/// if case .object(let members, _) = document.root { … }
/// ```
package struct JSONDocument: Sendable {
    /// One value of the document.
    package indirect enum Node: Equatable, Sendable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number, exactly as it was written (valid JSON number grammar).
        case number(String)
        /// A string, escapes resolved.
        case string(String)
        /// A string whose `\u` escapes leave a UTF-16 surrogate unpaired (`"\uD800"`), and the
        /// byte range of its source, quotes included. Valid JSON, so it may stand inside an array
        /// or object kept as text; no `String` or TEXT can hold it decoded.
        case loneSurrogateString(source: Range<Int>)
        /// An array and the byte range of its source text, brackets included.
        case array([Node], source: Range<Int>)
        /// An object's members in source order (duplicates kept) and its source range.
        case object([Member], source: Range<Int>)
    }

    /// One `"name": value` pair of an object.
    package struct Member: Equatable, Sendable {
        /// The member's name, escapes resolved (a lone surrogate as U+FFFD: see ``nameIsExact``).
        package let name: String
        /// The member's value.
        package let value: Node
        /// False when the name's escapes leave a UTF-16 surrogate unpaired, which ``name`` can
        /// only approximate: a reader that takes names as keys refuses such a member.
        package var nameIsExact = true
    }

    /// How deeply a value's arrays and objects may nest: the library's
    /// `DefaultsValueKind.maximumJSONDepth` (1,000), SQLite's own limit since 3.42, so a value
    /// `prefs` accepts is one the database accepts on every version. Deeper input is refused,
    /// which also keeps this recursive parser's stack bounded.
    package static let maximumDepth = DefaultsValueKind.maximumJSONDepth

    /// The document's UTF-8 text.
    package let bytes: [UInt8]
    /// The top-level value.
    package let root: Node

    /// Parses UTF-8 bytes that hold exactly one JSON value (surrounding whitespace allowed).
    /// - Parameters:
    ///   - bytes: the text.
    ///   - wrapsValues: true (the default) for a document whose top level holds values, such as
    ///     an export file or a console request (`{"value": …}`): each value inside may nest
    ///     ``maximumDepth`` levels, the document one more. False for a value on its own.
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    package init(parsing bytes: [UInt8], wrapsValues: Bool = true) throws(JSONSyntaxError) {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw JSONSyntaxError(message: "the text is not valid UTF-8", line: 1, column: 1)
        }
        var parser = Parser(bytes: bytes, depthLimit: JSONDocument.maximumDepth + (wrapsValues ? 1 : 0))
        self.bytes = bytes
        self.root = try parser.parseDocument()
    }

    /// Parses a string that holds exactly one JSON value (see ``init(parsing:wrapsValues:)``).
    /// - Throws: ``JSONSyntaxError`` naming the line and column of the first problem.
    package init(parsing text: String, wrapsValues: Bool = true) throws(JSONSyntaxError) {
        try self.init(parsing: Array(text.utf8), wrapsValues: wrapsValues)
    }

    /// The exact source text of a range, such as an array's or object's `source`.
    package func text(of range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }
}

/// Why a text is not JSON, and where.
package struct JSONSyntaxError: Error, CustomStringConvertible, Equatable {
    /// What is wrong, without the position.
    package let message: String
    /// 1-based line of the problem.
    package let line: Int
    /// 1-based column (counted in Unicode scalars) of the problem.
    package let column: Int

    /// `invalid JSON at line L, column C: message`.
    package var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
}

extension JSONDocument {
    /// A recursive-descent parser over UTF-8 bytes, following RFC 8259 strictly: no comments,
    /// no trailing commas, no single quotes, no NaN or Infinity.
    private struct Parser {
        package let bytes: [UInt8]
        /// The deepest nesting taken, counting the document's own top level.
        let depthLimit: Int
        var index = 0
        var depth = 0

        init(bytes: [UInt8], depthLimit: Int) {
            self.bytes = bytes
            self.depthLimit = depthLimit
        }

        mutating func parseDocument() throws(JSONSyntaxError) -> Node {
            skipWhitespace()
            guard index < bytes.count else { throw error("the text is empty; expected a JSON value") }
            let node = try parseValue()
            skipWhitespace()
            guard index == bytes.count else { throw error("unexpected text after the JSON value") }
            return node
        }

        private mutating func parseValue() throws(JSONSyntaxError) -> Node {
            guard index < bytes.count else { throw error("unexpected end of text; expected a value") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject()
            case UInt8(ascii: "["): return try parseArray()
            case UInt8(ascii: "\""):
                let start = index
                let string = try parseString()
                return string.exact ? .string(string.text) : .loneSurrogateString(source: start..<index)
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error("unexpected character \(describe(bytes[index])); expected a value")
            }
        }

        private mutating func parseObject() throws(JSONSyntaxError) -> Node {
            let start = index
            try enterContainer()
            index += 1  // {
            var members: [Member] = []
            skipWhitespace()
            if peek(UInt8(ascii: "}")) {
                index += 1
                depth -= 1
                return .object(members, source: start..<index)
            }
            while true {
                skipWhitespace()
                try expectMore("an object")
                guard peek(UInt8(ascii: "\"")) else { throw error("expected a member name in double quotes") }
                let name = try parseString()
                skipWhitespace()
                guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after the member name") }
                index += 1
                skipWhitespace()
                members.append(Member(name: name.text, value: try parseValue(), nameIsExact: name.exact))
                skipWhitespace()
                try expectMore("an object")
                if peek(UInt8(ascii: ",")) { index += 1; continue }
                if peek(UInt8(ascii: "}")) { index += 1; break }
                throw error("expected ',' or '}' in an object")
            }
            depth -= 1
            return .object(members, source: start..<index)
        }

        private mutating func parseArray() throws(JSONSyntaxError) -> Node {
            let start = index
            try enterContainer()
            index += 1  // [
            var elements: [Node] = []
            skipWhitespace()
            if peek(UInt8(ascii: "]")) {
                index += 1
                depth -= 1
                return .array(elements, source: start..<index)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue())
                skipWhitespace()
                try expectMore("an array")
                if peek(UInt8(ascii: ",")) { index += 1; continue }
                if peek(UInt8(ascii: "]")) { index += 1; break }
                throw error("expected ',' or ']' in an array")
            }
            depth -= 1
            return .array(elements, source: start..<index)
        }

        private func expectMore(_ container: String) throws(JSONSyntaxError) {
            guard index < bytes.count else { throw error("unexpected end of text inside \(container)") }
        }

        private mutating func enterContainer() throws(JSONSyntaxError) {
            depth += 1
            guard depth <= depthLimit else {
                let within = depthLimit > JSONDocument.maximumDepth ? "a value's " : ""
                throw error("\(within)arrays and objects nest more than \(JSONDocument.maximumDepth) levels deep (the most SQLite's JSON functions take on every version)")
            }
        }

        /// The string's text, and whether it is exact (false: a lone surrogate stands as U+FFFD).
        private mutating func parseString() throws(JSONSyntaxError) -> (text: String, exact: Bool) {
            index += 1  // opening quote
            var utf8: [UInt8] = []
            var exact = true
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return (String(decoding: utf8, as: UTF8.self), exact)
                case UInt8(ascii: "\\"):
                    index += 1
                    if try !parseEscape(into: &utf8) { exact = false }
                case 0..<0x20:
                    throw error("control character \(describe(byte)) in a string must be escaped")
                default:
                    utf8.append(byte)
                    index += 1
                }
            }
        }

        /// Appends one escape's UTF-8; returns false when it was a UTF-16 surrogate left unpaired,
        /// appended as U+FFFD.
        private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) -> Bool {
            guard index < bytes.count else { throw error("unterminated escape sequence") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalarValue = try parseHex4()
                if (0xD800..<0xDC00).contains(scalarValue) {
                    // A high surrogate pairs with a low one escaped right after it; anything else
                    // leaves it unpaired, and what follows is read on its own.
                    let next = index
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try parseHex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = next
                        }
                    }
                    if index == next {
                        utf8.append(contentsOf: [0xEF, 0xBF, 0xBD])
                        return false
                    }
                } else if (0xDC00..<0xE000).contains(scalarValue) {
                    utf8.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    return false
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { throw error("invalid \\u escape") }
                utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                index -= 1
                throw error("invalid escape sequence \\\(describe(byte))")
            }
            return true
        }

        private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("expected four hex digits after \\u") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("expected four hex digits after \\u")
                }
                value = value * 16 + digit
                index += 1
            }
            return value
        }

        private mutating func parseNumber() throws(JSONSyntaxError) -> String {
            let start = index
            if peek(UInt8(ascii: "-")) { index += 1 }
            if peek(UInt8(ascii: "0")) {
                index += 1
                if peekDigit() { throw error("numbers cannot have leading zeros") }
            } else {
                guard peekDigit() else { throw error("expected a digit") }
                while peekDigit() { index += 1 }
            }
            if peek(UInt8(ascii: ".")) {
                index += 1
                guard peekDigit() else { throw error("expected a digit after the decimal point") }
                while peekDigit() { index += 1 }
            }
            if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
                index += 1
                if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
                guard peekDigit() else { throw error("expected a digit in the exponent") }
                while peekDigit() { index += 1 }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
                throw error("unexpected character \(describe(bytes[index])); expected a value")
            }
            index += expected.count
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private func peek(_ byte: UInt8) -> Bool {
            index < bytes.count && bytes[index] == byte
        }

        private func peekDigit() -> Bool {
            index < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
        }

        private func describe(_ byte: UInt8) -> String {
            if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return "0x" + String(byte, radix: 16, uppercase: true)
        }

        private func error(_ message: String) -> JSONSyntaxError {
            var line = 1
            var column = 1
            for byte in bytes[..<min(index, bytes.count)] {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {  // count characters, not UTF-8 continuation bytes
                    column += 1
                }
            }
            return JSONSyntaxError(message: message, line: line, column: column)
        }
    }
}
