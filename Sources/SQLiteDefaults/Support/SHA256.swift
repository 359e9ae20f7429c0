/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the two places that need a digest:
/// the keyed digest that stands in for a secret's value in the history, and the console's
/// salted token hashes.
///
/// Written here rather than taken from swift-crypto because the core library promises to
/// resolve swift-log and swift-metrics only (a consumer with `traits: []` builds nothing else);
/// swift-crypto would bring swift-asn1 and BoringSSL into every build. Both digests hash a few
/// dozen bytes at a time (a token, a value up to the history's 16 KiB), so speed does not
/// matter; correctness is checked against the NIST and RFC 4231 vectors and against
/// `openssl dgst` in SHA256Tests.
package enum SHA256 {
    /// The 32-byte digest of `message`.
    package static func hash<Bytes: Collection>(_ message: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var state = initialState
        var block: [UInt8] = []
        block.reserveCapacity(64)
        var length: UInt64 = 0
        for byte in message {
            block.append(byte)
            length &+= 1
            if block.count == 64 {
                compress(&state, block)
                block.removeAll(keepingCapacity: true)
            }
        }
        // Padding: 0x80, zeros to 56 mod 64, then the length in bits, big-endian.
        block.append(0x80)
        if block.count > 56 {
            block.append(contentsOf: repeatElement(0, count: 64 - block.count))
            compress(&state, block)
            block.removeAll(keepingCapacity: true)
        }
        block.append(contentsOf: repeatElement(0, count: 56 - block.count))
        let bits = length &* 8
        for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        compress(&state, block)
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in state {
            for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    /// HMAC-SHA-256 of `message` under `key` (RFC 2104; a key over 64 bytes is hashed first).
    package static func hmac<Key: Collection, Bytes: Collection>(key: Key, message: Bytes) -> [UInt8]
        where Key.Element == UInt8, Bytes.Element == UInt8 {
        var keyBlock = key.count > 64 ? hash(key) : Array(key)
        keyBlock.append(contentsOf: repeatElement(0, count: 64 - keyBlock.count))
        let inner = hash(keyBlock.map { $0 ^ 0x36 } + Array(message))
        return hash(keyBlock.map { $0 ^ 0x5c } + inner)
    }

    /// `bytes` as lowercase hexadecimal.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of a hexadecimal string (either case); nil when it is not one.
    package static func bytes(fromHex text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    /// Whether `a` and `b` are equal, in time that depends on their lengths only (a secret
    /// compared byte by byte with an early exit tells an attacker how many bytes matched).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    private static let initialState: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }

    /// One 64-byte block into `state`.
    private static func compress(_ state: inout [UInt32], _ block: [UInt8]) {
        var w = [UInt32](repeating: 0, count: 64)
        for t in 0..<16 {
            w[t] = UInt32(block[t * 4]) << 24 | UInt32(block[t * 4 + 1]) << 16 | UInt32(block[t * 4 + 2]) << 8 | UInt32(block[t * 4 + 3])
        }
        for t in 16..<64 {
            let s0 = rotateRight(w[t - 15], 7) ^ rotateRight(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotateRight(w[t - 2], 17) ^ rotateRight(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for t in 0..<64 {
            let s1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ roundConstants[t] &+ w[t]
            let s0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            h = g; g = f; f = e; e = d &+ t1
            d = c; c = b; b = a; a = t1 &+ t2
        }
        state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
        state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
    }
}
