import ChildProcesses
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("SHA-256 and HMAC", .offThePool)
struct SHA256Tests {
    @Test("NIST vectors: empty, abc, two blocks, a million a's")
    func nistVectors() {
        #expect(SHA256.hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("every length around the padding boundary agrees with openssl", arguments: [55, 56, 57, 63, 64, 65, 119, 120, 128])
    func paddingBoundaries(length: Int) async throws {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let expected = try await openssl(["dgst", "-sha256", "-hex"], input: message)
        #expect(expected.hasSuffix(SHA256.hex(SHA256.hash(message))))
    }

    @Test("RFC 4231 HMAC vectors 1, 2 and 6 (a key longer than a block)")
    func hmacVectors() {
        #expect(SHA256.hex(SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(SHA256.hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(SHA256.hex(SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131),
                                       message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func hexRoundTripsAndRefusesNonHex() {
        let bytes: [UInt8] = [0, 1, 0xab, 0xff]
        #expect(SHA256.bytes(fromHex: SHA256.hex(bytes)) == bytes)
        #expect(SHA256.bytes(fromHex: "ABff") == [0xab, 0xff])
        #expect(SHA256.bytes(fromHex: "abc") == nil)
        #expect(SHA256.bytes(fromHex: "zz") == nil)
        #expect(SHA256.constantTimeEqual([1, 2], [1, 2]))
        #expect(!SHA256.constantTimeEqual([1, 2], [1, 3]))
        #expect(!SHA256.constantTimeEqual([1, 2], [1, 2, 3]))
    }

    /// `openssl ARGUMENTS` with `input` on its standard input; its trimmed output. Waited for
    /// without holding a thread of the cooperative pool.
    private func openssl(_ arguments: [String], input: [UInt8]) async throws -> String {
        let child = try ChildProcess("/usr/bin/env", ["openssl"] + arguments, input: input)
        let outcome = try #require(await child.wait(timeout: .seconds(600)), "openssl \(arguments) did not finish")
        return outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
