#if Flags
/// flagd's `sem_ver`: `{"sem_ver": [version, op, version]}` with `=`, `!=`, `<`, `<=`, `>`,
/// `>=`, `^` (same major) and `~` (same major and minor). A leading `v`/`V` is dropped, a
/// partial version (`1`, `1.2`) is completed with zeros, build metadata is ignored. A version
/// that is not SemVer 2.0, an unknown operator or a wrong number of operands answers `null`.
enum SemanticVersionOperator {
    static func evaluate(_ arguments: [FlagValue]) -> FlagValue {
        guard arguments.count == 3, case .string(let op) = arguments[1],
              let left = SemanticVersion(arguments[0]), let right = SemanticVersion(arguments[2]) else { return .null }
        switch op {
        case "=": return .bool(left == right)
        case "!=": return .bool(left != right)
        case "<": return .bool(left < right)
        case "<=": return .bool(left <= right)
        case ">": return .bool(left > right)
        case ">=": return .bool(left >= right)
        case "^": return .bool(left.major == right.major)
        case "~": return .bool(left.major == right.major && left.minor == right.minor)
        default: return .null
        }
    }
}

/// A SemVer 2.0 version; equality and order ignore build metadata (SemVer §10–11).
struct SemanticVersion: Comparable {
    let major: UInt64, minor: UInt64, patch: UInt64
    let prerelease: [Substring]

    init?(_ value: FlagValue) {
        var text: Substring
        switch value {
        case .string(let string): text = Substring(string)
        case .integer, .double: text = Substring(JsonLogicCoercion.string(value))
        default: return nil
        }
        if let first = text.utf8.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") { text = text.dropFirst() }
        // Bytes, not Characters: the separators are ASCII, and a rule compares versions on
        // every evaluation (this was half the cost of a four-clause rule).
        let numericEnd = text.utf8.firstIndex(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }) ?? text.endIndex
        guard let (major, minor, patch) = Self.core(text[..<numericEnd].utf8) else { return nil }
        var rest = text[numericEnd...]
        var prerelease: [Substring] = []
        if rest.first == "-" {
            let end = rest.firstIndex(of: "+") ?? rest.endIndex
            prerelease = rest[rest.index(after: rest.startIndex)..<end].split(separator: ".", omittingEmptySubsequences: false)
            guard prerelease.allSatisfy({ Self.isIdentifier($0) && (!Self.isNumeric($0) || Self.number($0) != nil) }) else { return nil }
            rest = rest[end...]
        }
        if rest.first == "+" {
            let build = rest.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard build.allSatisfy(Self.isIdentifier) else { return nil }
        } else if !rest.isEmpty {
            return nil
        }
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
    }

    /// `MAJOR[.MINOR[.PATCH]]`, the missing parts zero: each part digits with no leading zero,
    /// none empty, at most three, each within `UInt64`.
    static func core(_ bytes: Substring.UTF8View) -> (UInt64, UInt64, UInt64)? {
        var parts: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var part = 0
        var value: UInt64 = 0
        var digits = 0
        var startsWithZero = false
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, part < 2 else { return nil }
                if part == 0 { parts.0 = value } else { parts.1 = value }
                part += 1
                (value, digits) = (0, 0)
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if digits == 0 { startsWithZero = byte == UInt8(ascii: "0") } else if startsWithZero { return nil }
            let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = tens.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowed, !carried else { return nil }
            value = sum
            digits += 1
        }
        guard digits > 0 else { return nil }
        switch part {
        case 0: parts.0 = value
        case 1: parts.1 = value
        default: parts.2 = value
        }
        return parts
    }

    /// A numeric part: digits, no leading zero.
    static func number(_ text: Substring) -> UInt64? {
        guard isNumeric(text), text == "0" || text.first != "0" else { return nil }
        return UInt64(text)
    }

    static func isNumeric(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    static func isIdentifier(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.patch == rhs.patch && lhs.prerelease == rhs.prerelease
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        // A pre-release comes before its release.
        if lhs.prerelease.isEmpty || rhs.prerelease.isEmpty { return !lhs.prerelease.isEmpty && rhs.prerelease.isEmpty }
        for (a, b) in zip(lhs.prerelease, rhs.prerelease) where a != b {
            switch (isNumeric(a) ? UInt64(a) : nil, isNumeric(b) ? UInt64(b) : nil) {
            case (let x?, let y?): return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.utf8.lexicographicallyPrecedes(b.utf8)
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }
}
#endif
