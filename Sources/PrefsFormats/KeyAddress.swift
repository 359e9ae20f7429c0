import Foundation

/// How a person or a script names a stored key, including one whose bytes are not valid UTF-8
/// (only another SQL client can write such a key; no `String` holds it).
///
/// Such a key's address is its bytes written as `prefs list` and `read` write invalid text:
/// the valid parts as ``ValueFormatting/escaped(_:)`` writes them (a backslash doubled, `\n`,
/// `\u{1B}`), each invalid byte as `\x{FF}`. So the key `FF 6B 65 79` is `\x{FF}key`.
/// Parsing is exact: a text is the address of bytes only when it is that escaped form of
/// bytes that are not valid UTF-8 (re-escaping them gives the text back); any other text is
/// the key with that text. The hex form (``init(hex:)``) names any key without ambiguity.
package enum KeyAddress: Equatable, Sendable {
    /// A key that is valid UTF-8: the `String` names it.
    case text(String)
    /// A key whose bytes are not valid UTF-8.
    case bytes(Data)

    /// The address of the key `text` names: its bytes, when `text` is their escaped form.
    package init(parsing text: String) {
        if text.contains("\\x{"), let bytes = Self.unescape(text), String(validating: bytes, as: UTF8.self) == nil,
           ValueFormatting.escaped(invalidUTF8: bytes) == text {
            self = .bytes(bytes)
        } else {
            self = .text(text)
        }
    }

    /// The key whose bytes `hex` spells (two hex digits a byte, either case).
    /// - Throws: ``FormatError`` for an odd length, a non-hex digit, or no bytes.
    package init(hex: String) throws(FormatError) {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else {
            throw FormatError("a hex key needs two hex digits a byte (got \(ValueFormatting.quoted(hex)))")
        }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.hexValue(digits[index]), let low = Self.hexValue(digits[index + 1]) else {
                throw FormatError("a hex key needs two hex digits a byte (got \(ValueFormatting.quoted(hex)))")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = Self(bytes: bytes)
    }

    /// The address of a key with these exact bytes.
    package init(bytes: Data) {
        self = String(validating: bytes, as: UTF8.self).map(KeyAddress.text) ?? .bytes(bytes)
    }

    /// The address as text: the key itself, or the escaped form of its bytes.
    package var shown: String {
        switch self {
        case .text(let text): text
        case .bytes(let bytes): ValueFormatting.escaped(invalidUTF8: bytes)
        }
    }

    /// The key's bytes, lowercase hex.
    package var hex: String {
        let bytes: Data = switch self {
        case .text(let text): Data(text.utf8)
        case .bytes(let bytes): bytes
        }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The bytes an escaped text stands for, or nil when an escape is malformed.
    private static func unescape(_ text: String) -> Data? {
        var bytes = Data()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func braced(from start: Int) -> (UInt32, Int)? {
            guard start < scalars.count, scalars[start] == "{", let end = scalars[start...].firstIndex(of: "}"),
                  end > start + 1, let value = UInt32(String(String.UnicodeScalarView(scalars[(start + 1)..<end])), radix: 16)
            else { return nil }
            return (value, end + 1)
        }
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "\\" else {
                bytes.append(contentsOf: Array(String(scalar).utf8))
                index += 1
                continue
            }
            guard index + 1 < scalars.count else { return nil }
            switch scalars[index + 1] {
            case "\\": bytes.append(UInt8(ascii: "\\")); index += 2
            case "n": bytes.append(0x0A); index += 2
            case "r": bytes.append(0x0D); index += 2
            case "t": bytes.append(0x09); index += 2
            case "x":
                guard let (value, next) = braced(from: index + 2), value <= 0xFF else { return nil }
                bytes.append(UInt8(value))
                index = next
            case "u":
                guard let (value, next) = braced(from: index + 2), let decoded = Unicode.Scalar(value) else { return nil }
                bytes.append(contentsOf: Array(String(decoded).utf8))
                index = next
            default:
                return nil
            }
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
