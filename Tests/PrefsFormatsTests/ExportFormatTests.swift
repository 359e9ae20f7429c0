import Foundation
import PrefsFormats
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("ExportFormat", .offThePool)
struct ExportFormatTests {
    @Test(arguments: [
        (SQLiteValue.integer(42), "42"),
        (.integer(.min), "-9223372036854775808"),
        (.real(2), "2.0"),
        (.real(0.1), "0.1"),
        (.real(1e-5), "1e-05"),
        (.real(.infinity), #"{"$real": "Infinity"}"#),
        (.real(-.infinity), #"{"$real": "-Infinity"}"#),
        (.text("Ada"), #""Ada""#),
        (.text("42"), #""42""#),
        (.text(#"["a","b"]"#), #"["a","b"]"#),
        (.text(#"{"name":"Ada"}"#), #"{"name":"Ada"}"#),
        (.text("[1,\n2]"), #""[1,\n2]""#),
        (.text("[not json]"), #""[not json]""#),
        (.text(#"{"$data":"AA=="}"#), #"{"$text": "{\"$data\":\"AA==\"}"}"#),
        (.blob(Data([0xDE, 0xAD, 0xBE, 0xEF])), #"{"$data": "3q2+7w=="}"#),
        (.null, "null"),
    ])
    func encodesEachStorageClass(value: SQLiteValue, json: String) {
        #expect(ExportFormat.encode(value) == json)
    }

    @Test func quotesControlCharactersAndSeparators() {
        #expect(ExportFormat.quote("a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{2028}é") == #""a\"b\\c\n\r\t\b\f\u0001\u2028é""#)
    }

    @Test func encodesAnObjectOneMemberPerLine() {
        #expect(ExportFormat.encodeObject([]) == "{}")
        #expect(ExportFormat.encodeObject([("a", .integer(1)), ("b", .text("x"))]) == "{\n  \"a\": 1,\n  \"b\": \"x\"\n}")
    }

    @Test func everyStorageClassSurvivesTheRoundTrip() throws {
        let entries: [(key: String, value: SQLiteValue)] = [
            ("int", .integer(.max)), ("real", .real(2)), ("tiny", .real(.leastNonzeroMagnitude)), ("inf", .real(-.infinity)),
            ("text", .text("line\nbreak")), ("json", .text(#"{"b": [1, 2.0], "a": null}"#)),
            ("tagged", .text(#"{"$real":1}"#)), ("blob", .blob(Data([0, 1, 2]))), ("empty", .blob(Data())),
            ("ключ 🔑", .text("")),
        ]
        let document = try JSONDocument(parsing: ExportFormat.encodeObject(entries))
        let decoded = try ExportFormat.decodeObject(document)
        #expect(decoded.map(\.key) == entries.map(\.key))
        #expect(decoded.map(\.value) == entries.map { Optional($0.value) })
    }

    /// Found by FuzzRoundTrip: "é" and "e" + U+0301 are two rows to SQLite, and Swift's `==`
    /// calls them equal, so an export holding both was refused as naming one key twice.
    @Test func canonicallyEquivalentKeysAreTwoKeys() throws {
        let entries: [(key: String, value: SQLiteValue)] = [("\u{E9}", .integer(1)), ("e\u{301}", .integer(2))]
        let decoded = try ExportFormat.decodeObject(try JSONDocument(parsing: ExportFormat.encodeObject(entries)))
        #expect(decoded.map { Array($0.key.utf8) } == entries.map { Array($0.key.utf8) })
        #expect(decoded.map(\.value) == [.integer(1), .integer(2)])
    }

    @Test func decodesHandWrittenValues() throws {
        let document = try JSONDocument(parsing: #"{"yes": true, "no": false, "gone": null, "r": {"$real": 2}, "t": {"$text": "x"}, "inf": {"$real": "Infinity"}}"#)
        let decoded = try ExportFormat.decodeObject(document)
        #expect(decoded.map(\.value) == [.integer(1), .integer(0), nil, .real(2), .text("x"), .real(.infinity)])
    }

    @Test(arguments: [
        ("[1]", "expected one JSON object mapping keys to values, found an array"),
        (#"{"a": 1, "a": 2}"#, "key 'a' appears more than once"),
        (#"{"": 1}"#, "a key is empty; keys must be non-empty strings"),
        (#"{"a": 9223372036854775808}"#, "unsupported value for key 'a': 9223372036854775808 is outside the 64-bit integer range (write it as 9223372036854775808.0 for a REAL)"),
        (#"{"a": 1e400}"#, "unsupported value for key 'a': 1e400 is outside the range of a double"),
        (#"{"a": {"$data": "***"}}"#, #"unsupported value for key 'a': "$data" holds invalid base64"#),
        (#"{"a": {"$data": 1}}"#, #"unsupported value for key 'a': "$data" takes a string"#),
        (#"{"a": {"$real": "NaN"}}"#, #"unsupported value for key 'a': "$real" takes a number, "Infinity" or "-Infinity""#),
        (#"{"a": {"$date": 1}}"#, #"unsupported value for key 'a': unknown tag "$date" (known: "$data", "$real", "$text", "$textBytes")"#),
    ])
    func refusesWhatHasNoStorageClass(json: String, message: String) throws {
        let document = try JSONDocument(parsing: json)
        #expect(throws: FormatError(message)) { try ExportFormat.decodeObject(document) }
    }

    @Test func embedsOnlyOneLineArraysAndObjects() {
        #expect(ExportFormat.embedsAsJSON("[]"))
        #expect(ExportFormat.embedsAsJSON(#"{"a":1}"#))
        #expect(!ExportFormat.embedsAsJSON(" [] "))
        #expect(!ExportFormat.embedsAsJSON("[\n]"))
        #expect(!ExportFormat.embedsAsJSON("42"))
        #expect(!ExportFormat.embedsAsJSON(#"{"$text":"x"}"#))
    }
}
