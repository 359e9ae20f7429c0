#if Console && Prefs
@testable import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// The token comparison: equal only for the same bytes, whatever the lengths.
@Suite("Console token comparison", .offThePool)
struct ConstantTimeTests {
    @Test func equalOnlyForTheSameBytes() {
        let token = Array("s3cret-token".utf8)
        #expect(ConstantTime.equal(token, token))
        #expect(ConstantTime.equal([], []))
        #expect(!ConstantTime.equal(token, Array("s3cret-tokem".utf8)), "the last byte differs")
        #expect(!ConstantTime.equal(token, Array("s3cret".utf8)), "a prefix")
        #expect(!ConstantTime.equal(token, token + [0]), "a trailing NUL")
        #expect(!ConstantTime.equal([], token), "an empty token")
        // Lengths 256 apart: their difference truncated to a byte is 0, and must still count.
        #expect(!ConstantTime.equal([], [UInt8](repeating: 0, count: 256)))
    }
}
#endif
