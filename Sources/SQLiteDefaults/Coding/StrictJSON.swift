/// Strict JSON text (RFC 8259), judged exactly as the schema's validator in SQL judges it
/// (trigger `defaults_json_validate` and its grammar table, Migrations/0014): the one definition of "valid JSON" for a
/// `json` key on every SQLite version, in both languages, kept equal by a differential test
/// (StrictJSONTests).
///
/// Stricter than SQLite's own parsers, on purpose: `json_valid` nests 2,000 levels before 3.45,
/// and from 3.42 `json_each` also takes JSON5 (comments, single quotes, a leading byte-order
/// mark, hexadecimal numbers). Here: RFC 8259 only, at most ``maximumDepth`` levels, no NUL byte
/// outside a string. Like SQLite, a `\u` escape of a lone UTF-16 surrogate is accepted.
///
/// Iterative (a stack of open containers, no recursion), so no depth can exhaust a thread's
/// stack, and it runs inside SQLite's callback on whatever thread writes.
enum StrictJSON {
    /// The deepest nesting of arrays and objects accepted, at every door (the schema, `prefs`,
    /// the console, the fleet): ``DefaultsValueKind/maximumJSONDepth``.
    static var maximumDepth: Int { DefaultsValueKind.maximumJSONDepth }

    /// Whether `bytes` are one JSON value with optional surrounding white space.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var scanner = Scanner(bytes: bytes)
        return scanner.scanDocument()
    }

    /// Whether `text` is.
    static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isValid($0) }
    }

    /// Whether these bytes are (TEXT that is not UTF-8 is judged by its bytes, as SQLite reads it).
    static func isValid<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        if let answer = bytes.withContiguousStorageIfAvailable({ isValid($0) }) { return answer }
        return Array(bytes).withUnsafeBufferPointer { isValid($0) }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// The open arrays and objects, innermost last: `[` or `{`.
        var open: [UInt8] = []

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func scanDocument() -> Bool {
            while true {
                // A value is expected here.
                skipSpace()
                guard index < bytes.count else { return false }
                switch bytes[index] {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    let opener = bytes[index]
                    guard open.count < StrictJSON.maximumDepth else { return false }
                    open.append(opener)
                    index += 1
                    skipSpace()
                    let closer = opener == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
                    if index < bytes.count, bytes[index] == closer {
                        index += 1
                        open.removeLast()
                    } else if opener == UInt8(ascii: "{") {
                        guard scanMemberName() else { return false }
                        continue
                    } else {
                        continue
                    }
                case UInt8(ascii: "\""):
                    guard scanString() else { return false }
                case UInt8(ascii: "t"):
                    guard scanLiteral("true") else { return false }
                case UInt8(ascii: "f"):
                    guard scanLiteral("false") else { return false }
                case UInt8(ascii: "n"):
                    guard scanLiteral("null") else { return false }
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard scanNumber() else { return false }
                default:
                    return false
                }
                // A value ended: close containers, or go on to the next element or member.
                while true {
                    skipSpace()
                    guard let innermost = open.last else { return index == bytes.count }
                    guard index < bytes.count else { return false }
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: ",") {
                        if innermost == UInt8(ascii: "{") {
                            skipSpace()
                            guard scanMemberName() else { return false }
                        }
                        break
                    }
                    guard byte == (innermost == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")) else { return false }
                    open.removeLast()
                }
            }
        }

        /// `"name"` and the `:` after it (the value follows).
        private mutating func scanMemberName() -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), scanString() else { return false }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private mutating func scanLiteral(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// A string from its opening quote: no control characters, only JSON's escapes.
        private mutating func scanString() -> Bool {
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return true
                case 0x00..<0x20:
                    return false
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return false }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        guard bytes.count - index >= 4 else { return false }
                        for _ in 0..<4 {
                            guard isHexDigit(bytes[index]) else { return false }
                            index += 1
                        }
                    default:
                        return false
                    }
                default:
                    continue
                }
            }
            return false
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        private mutating func scanNumber() -> Bool {
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                guard scanDigits() else { return false }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard scanDigits() else { return false }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard scanDigits() else { return false }
            }
            return true
        }

        /// One or more digits.
        private mutating func scanDigits() -> Bool {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index > start
        }

        private func isHexDigit(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
            default: false
            }
        }
    }
}
