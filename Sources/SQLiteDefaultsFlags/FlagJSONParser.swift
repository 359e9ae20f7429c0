#if Flags
/// A strict JSON reader over UTF-8 bytes that keeps integers and floating-point numbers
/// apart (Foundation's reader does not, and turns `1` and `true` into the same `NSNumber`).
public enum FlagJSONParser {
    /// How deeply arrays and objects may nest: 1,000 levels, the store's own limit for JSON
    /// (`DefaultsValueKind.maximumJSONDepth`).
    public static let maximumDepth = 1_000

    /// Parses one JSON value that fills the whole text (surrounding white space allowed).
    ///
    /// - Throws: ``FlagsError`` `.invalidJSON` with the byte offset of the fault, `.tooDeep`.
    public static func parse(_ text: String) throws(FlagsError) -> FlagValue {
        var reader = Reader(bytes: Array(text.utf8))
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw reader.fault("unexpected text after the value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        func fault(_ what: String) -> FlagsError {
            .invalidJSON("\(what) at byte \(index)")
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(FlagsError) -> FlagValue {
            guard index < bytes.count else { throw fault("unexpected end of text") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw fault("unexpected character")
            }
        }

        mutating func literal(_ word: String) throws(FlagsError) {
            let expected = Array(word.utf8)
            let count = expected.count
            guard index + count <= bytes.count else { throw fault("unexpected end of text") }
            for offset in 0..<count where bytes[index + offset] != expected[offset] {
                throw fault("invalid literal")
            }
            index += count
        }

        mutating func object(depth: Int) throws(FlagsError) -> FlagValue {
            guard depth <= FlagJSONParser.maximumDepth else { throw .tooDeep(FlagJSONParser.maximumDepth) }
            index += 1
            var members: [String: FlagValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fault("expected a member name") }
                let name = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fault("expected ':'") }
                index += 1
                skipSpace()
                members[name] = try value(depth: depth)
                skipSpace()
                guard index < bytes.count else { throw fault("unexpected end of text") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw fault("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(FlagsError) -> FlagValue {
            guard depth <= FlagJSONParser.maximumDepth else { throw .tooDeep(FlagJSONParser.maximumDepth) }
            index += 1
            var elements: [FlagValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                guard index < bytes.count else { throw fault("unexpected end of text") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                throw fault("expected ',' or ']'")
            }
        }

        mutating func number() throws(FlagsError) -> FlagValue {
            let start = index
            var integral = true
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fault("invalid number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw fault("invalid number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                integral = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { throw fault("invalid number") }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if integral, let exact = Int64(text) { return .integer(exact) }
            guard let double = Double(text), double.isFinite else { throw fault("number out of range") }
            return .double(double)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func string() throws(FlagsError) -> String {
            index += 1
            var runStart = index
            var raw: [UInt8] = []
            func flush(_ end: Int) { raw.append(contentsOf: bytes[runStart..<end]) }
            while true {
                guard index < bytes.count else { throw fault("unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flush(index)
                    index += 1
                    break
                }
                if byte < 0x20 { throw fault("control character in a string") }
                if byte != UInt8(ascii: "\\") { index += 1; continue }
                flush(index)
                index += 1
                guard index < bytes.count else { throw fault("unterminated string") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): raw.append(0x22)
                case UInt8(ascii: "\\"): raw.append(0x5C)
                case UInt8(ascii: "/"): raw.append(0x2F)
                case UInt8(ascii: "b"): raw.append(0x08)
                case UInt8(ascii: "f"): raw.append(0x0C)
                case UInt8(ascii: "n"): raw.append(0x0A)
                case UInt8(ascii: "r"): raw.append(0x0D)
                case UInt8(ascii: "t"): raw.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code), index + 1 < bytes.count,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        let save = index
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = save
                        }
                    }
                    // A lone surrogate has no UTF-8 form: it becomes U+FFFD, as Swift strings do.
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    raw.append(contentsOf: Array(String(scalar).utf8))
                default:
                    throw fault("invalid escape")
                }
                runStart = index
            }
            guard let text = String(validating: raw, as: UTF8.self) else { throw fault("invalid UTF-8 in a string") }
            return text
        }

        mutating func hex4() throws(FlagsError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw fault("invalid \\u escape") }
            var code: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw fault("invalid \\u escape")
                }
                code = code << 4 | digit
                index += 1
            }
            return code
        }
    }
}
#endif
