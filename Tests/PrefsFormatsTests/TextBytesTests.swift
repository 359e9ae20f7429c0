import Foundation
import PrefsFormats
import SQLiteDefaults
import Testing
import TestScheduling

/// TEXT whose bytes are not valid UTF-8 in the export format and on screen.
@Suite("TEXT that is not valid UTF-8", .offThePool)
struct TextBytesTests {
    private let bytes = SQLiteValue.invalidUTF8Text(Data([0x61, 0xFF, 0x62]))

    @Test func exportsAsTaggedBase64AndImportsTheSameBytes() throws {
        #expect(ExportFormat.encode(bytes) == #"{"$textBytes": "Yf9i"}"#)
        let document = try JSONDocument(parsing: #"{"k": {"$textBytes": "Yf9i"}, "v": {"$textBytes": "aMOp"}}"#)
        let entries = try ExportFormat.decodeObject(document)
        #expect(entries.map(\.key) == ["k", "v"])
        #expect(entries[0].value == bytes)
        #expect(entries[1].value == .text("hé"))  // valid UTF-8 is plain TEXT
    }

    @Test func refusesBadTextBytes() throws {
        for json in [#"{"k": {"$textBytes": "%%%"}}"#, #"{"k": {"$textBytes": 1}}"#] {
            let document = try JSONDocument(parsing: json)
            #expect(throws: FormatError.self) { try ExportFormat.decodeObject(document) }
        }
    }

    @Test func displaysInvalidBytesEscaped() {
        #expect(ValueFormatting.readRepresentation(bytes) == #"a\x{FF}b"#)
        #expect(ValueFormatting.displayRepresentation(.invalidUTF8Text(Data([0x5C, 0x0A, 0xC3, 0xA9, 0xC3]))) == #"\\\né\x{C3}"#)
    }
}
