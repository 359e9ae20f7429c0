import Foundation

/// What the change log keeps of a secret key's value (Migrations/0012): a digest that tells
/// equal values apart, and the value sealed so that `prefs revert` and
/// ``DefaultsStore/value(writtenBy:)`` can write it back — never the plaintext.
///
/// The library seals the entry each of its writes to a secret key logged, in the same
/// transaction (``StoreConnection/writeSealed(_:_:isJSON:)``; up to schema 14 the log's triggers
/// did, through `sqlite_compileoption_get(X)`). The message is the value's storage class, `:`,
/// and the value's bytes (a REAL as `printf('%!.17g')`, which reads back to the same double);
/// the key is the file's own (`defaults_digest_key`). The sealed form, kept in the log's
/// `sealed` column:
///
///     digest (32 bytes)  HMAC-SHA-256(HMAC(fileKey, "digest"), class ":" bytes)
///     nonce  (16 bytes)  random, per entry
///     body               class ":" bytes, XOR a keystream of
///                        HMAC-SHA-256(HMAC(fileKey, "seal"), nonce ‖ counter) blocks
///
/// HMAC as a pseudorandom function in counter mode is a stream cipher; the digest doubles as
/// the check that an opened seal is whole. The key lives in the file, beside the value itself:
/// the seal keeps the history's copies out of every output and every dump of the log, not
/// from someone who can read the file (who can read the current value anyway).
///
/// The sealed digest depends on the value alone, so it is never shown: history shows
/// ``shownDigest(_:key:fileKey:)``, which is keyed by the entry's key as well. Were it not,
/// anyone who may write one secret key and read the history could write guesses there and
/// compare their digests with another secret key's (an oracle across keys). It is computed
/// when an entry is read, from the sealed digest, so entries sealed before it existed show
/// it too and the log's format did not change.
enum SecretSeal {
    /// The sealed form of `message` (storage class, `:`, bytes) under `fileKey`, with a fresh
    /// random nonce.
    static func seal(_ message: [UInt8], fileKey: [UInt8]) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let digest = SHA256.hmac(key: subkey(fileKey, "digest"), message: message)
        return digest + nonce + xor(message, keystream(subkey(fileKey, "seal"), nonce: nonce, count: message.count))
    }

    /// The digest history shows for the sealed entry `sealed` of `key`, as lowercase hex: an
    /// HMAC-SHA-256, under a subkey of the file's key, of the key's UTF-8 length (8 bytes, big
    /// endian), its bytes, and the seal's digest of the value. Equal values of one key have
    /// equal digests; equal values of two keys do not; and none can be computed from a guess
    /// without the file. nil when `sealed` is too short to hold a digest.
    static func shownDigest(_ sealed: [UInt8], key: String, fileKey: [UInt8]) -> String? {
        guard sealed.count >= 48 else { return nil }
        let name = Array(key.utf8)
        let length = withUnsafeBytes(of: UInt64(name.count).bigEndian) { Array($0) }
        return SHA256.hex(SHA256.hmac(key: subkey(fileKey, "shown digest"), message: length + name + Array(sealed.prefix(32))))
    }

    /// The value a sealed entry holds, opened with the file's key; nil when the seal is not
    /// whole (its digest does not match what it opens to) or names no storage class.
    static func open(_ sealed: [UInt8], fileKey: [UInt8]) -> SQLiteValue? {
        guard sealed.count > 48 else { return nil }
        let digest = Array(sealed[0..<32])
        let nonce = Array(sealed[32..<48])
        let body = Array(sealed[48...])
        let message = xor(body, keystream(subkey(fileKey, "seal"), nonce: nonce, count: body.count))
        guard SHA256.constantTimeEqual(SHA256.hmac(key: subkey(fileKey, "digest"), message: message), digest),
              let colon = message.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let storageClass = String(decoding: message[..<colon], as: UTF8.self)
        let bytes = Array(message[(colon + 1)...])
        switch storageClass {
        case "integer": return Int64(String(decoding: bytes, as: UTF8.self)).map(SQLiteValue.integer)
        case "real": return Double(String(decoding: bytes, as: UTF8.self)).map(SQLiteValue.real)
        case "text": return String(validating: bytes, as: UTF8.self).map(SQLiteValue.text) ?? .invalidUTF8Text(Data(bytes))
        case "blob": return .blob(Data(bytes))
        case "null": return .null
        default: return nil
        }
    }

    private static func subkey(_ fileKey: [UInt8], _ purpose: String) -> [UInt8] {
        SHA256.hmac(key: fileKey, message: Array(purpose.utf8))
    }

    private static func keystream(_ key: [UInt8], nonce: [UInt8], count: Int) -> [UInt8] {
        var stream: [UInt8] = []
        stream.reserveCapacity(count + 32)
        var counter: UInt32 = 0
        while stream.count < count {
            let block = nonce + [UInt8(counter >> 24), UInt8(counter >> 16 & 0xff), UInt8(counter >> 8 & 0xff), UInt8(counter & 0xff)]
            stream += SHA256.hmac(key: key, message: block)
            counter += 1
        }
        return Array(stream.prefix(count))
    }

    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        zip(a, b).map { $0 ^ $1 }
    }
}
