#if Flags
/// The canonical CBOR encoding (RFC 7049 §3.9, as Python's `cbor2.dumps(…, canonical=True)`
/// writes it) of a bucketing key, after flagd's normalisation: a float with no fractional part
/// within [-2⁶³, 2⁶⁴ - 1] is encoded as that integer.
enum CanonicalCBOR {
    static func encode(_ value: FlagValue) -> [UInt8] {
        var out: [UInt8] = []
        encode(value, into: &out)
        return out
    }

    static func encode(_ value: FlagValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(0xf6)
        case .bool(let flag): out.append(flag ? 0xf5 : 0xf4)
        case .integer(let number): integer(number, into: &out)
        case .double(let number): double(number, into: &out)
        case .string(let text):
            head(major: 3, UInt64(text.utf8.count), into: &out)
            out.append(contentsOf: text.utf8)
        case .array(let elements):
            head(major: 4, UInt64(elements.count), into: &out)
            for element in elements { encode(element, into: &out) }
        case .object(let members):
            // Canonical order: shorter encoded keys first, then bytewise.
            let keys = members.keys.map { key -> ([UInt8], String) in
                var bytes: [UInt8] = []
                encode(.string(key), into: &bytes)
                return (bytes, key)
            }.sorted { a, b in a.0.count != b.0.count ? a.0.count < b.0.count : a.0.lexicographicallyPrecedes(b.0) }
            head(major: 5, UInt64(keys.count), into: &out)
            for (bytes, key) in keys {
                out.append(contentsOf: bytes)
                encode(members[key] ?? .null, into: &out)
            }
        }
    }

    static func integer(_ number: Int64, into out: inout [UInt8]) {
        if number >= 0 {
            head(major: 0, UInt64(number), into: &out)
        } else {
            head(major: 1, UInt64(bitPattern: -1 - number), into: &out)
        }
    }

    static func double(_ number: Double, into out: inout [UInt8]) {
        if number.rounded() == number, number >= -9_223_372_036_854_775_808.0, number <= 18_446_744_073_709_551_615.0 {
            if let exact = Int64(exactly: number) { return integer(exact, into: &out) }
            if let exact = UInt64(exactly: number) { return head(major: 0, exact, into: &out) }
        }
        // The shortest IEEE 754 form that holds the value exactly.
        #if !(os(macOS) && arch(x86_64))
        let half = Float16(number)
        if Double(half) == number || (number.isNaN && half.isNaN) {
            out.append(0xf9)
            append(UInt64(half.bitPattern), bytes: 2, into: &out)
            return
        }
        #endif
        let single = Float(number)
        if Double(single) == number {
            out.append(0xfa)
            append(UInt64(single.bitPattern), bytes: 4, into: &out)
            return
        }
        out.append(0xfb)
        append(number.bitPattern, bytes: 8, into: &out)
    }

    static func head(major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xff: out.append(type | 24); append(argument, bytes: 1, into: &out)
        case 0x100...0xffff: out.append(type | 25); append(argument, bytes: 2, into: &out)
        case 0x1_0000...0xffff_ffff: out.append(type | 26); append(argument, bytes: 4, into: &out)
        default: out.append(type | 27); append(argument, bytes: 8, into: &out)
        }
    }

    static func append(_ value: UInt64, bytes: Int, into out: inout [UInt8]) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
#endif
