import Foundation
import PrefsFormats
import Testing
import TestScheduling

@Suite("KeyAddress", .offThePool)
struct KeyAddressTests {
    @Test("Bytes that are not UTF-8 round-trip through their escaped address", arguments: [
        Data([0xFF, 0x6B, 0x65, 0x79]), Data([0x61, 0xFF, 0x62]), Data([0x5C, 0xFF]), Data([0x0A, 0xC3]), Data([0xE2, 0x82]),
    ])
    func roundTrip(bytes: Data) throws {
        let address = KeyAddress(bytes: bytes)
        #expect(address == .bytes(bytes))
        #expect(KeyAddress(parsing: address.shown) == address, "\(address.shown)")
        #expect(try KeyAddress(hex: address.hex) == address)
    }

    @Test("Any other text names itself: a valid key, a backslash, an escape that spells valid UTF-8 or is not canonical", arguments: [
        "timeout", #"a\b"#, #"\x{41}"#, #"\x{ff}key"#, #"\x{FF"#, #"\q"#, "..", "", #"\\x{FF}"#,
    ])
    func textNamesItself(text: String) {
        #expect(KeyAddress(parsing: text) == .text(text))
    }

    @Test("The escaped address of FF 6B 65 79 is \\x{FF}key; its hex is ff6b6579")
    func shownAndHex() throws {
        let address = KeyAddress.bytes(Data([0xFF, 0x6B, 0x65, 0x79]))
        #expect(address.shown == #"\x{FF}key"#)
        #expect(address.hex == "ff6b6579")
        #expect(try KeyAddress(hex: "2e2E") == .text(".."))
        #expect(throws: FormatError.self) { try KeyAddress(hex: "abc") }
        #expect(throws: FormatError.self) { try KeyAddress(hex: "zz") }
        #expect(throws: FormatError.self) { try KeyAddress(hex: "") }
    }
}
