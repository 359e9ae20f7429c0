import Foundation
import PrefsFormats
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("ValueFormatting", .offThePool)
struct ValueFormattingTests {
    @Test func readRepresentationIsWhatWriteTakesBack() {
        #expect(ValueFormatting.readRepresentation(.integer(-5)) == "-5")
        #expect(ValueFormatting.readRepresentation(.real(2)) == "2.0")
        #expect(ValueFormatting.readRepresentation(.real(1e-5)) == "1e-05")
        #expect(ValueFormatting.readRepresentation(.text("a\nb")) == "a\nb")
        #expect(ValueFormatting.readRepresentation(.blob(Data([0xDE, 0xAD, 0xBE, 0xEF]))) == "3q2+7w==")
        #expect(ValueFormatting.readRepresentation(.null) == "")
    }

    @Test func realTextIsShortestAndMarked() {
        #expect(ValueFormatting.realText(0.1) == "0.1")
        #expect(ValueFormatting.realText(1e20) == "1e+20")
        #expect(ValueFormatting.realText(-0.0) == "-0.0")
        #expect(ValueFormatting.realText(.nan) == "nan")
        #expect(ValueFormatting.realText(-.infinity) == "-inf")
        for number in [0.1, 1.0 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude] {
            #expect(Double(ValueFormatting.realText(number)) == number)
        }
    }

    @Test func displayKeepsOneValueOnOneLine() {
        #expect(ValueFormatting.displayRepresentation(.text("a\nb\t\\\u{1B}\u{2028}")) == #"a\nb\t\\\u{1B}\u{2028}"#)
        #expect(ValueFormatting.escaped("plain é") == "plain é")
    }

    @Test func quotedIsShortAndEscaped() {
        #expect(ValueFormatting.quoted("a\nb") == #"'a\nb'"#)
        let long = ValueFormatting.quoted(String(repeating: "x", count: 300))
        #expect(long == "'" + String(repeating: "x", count: 200) + "…'")
    }

    @Test func oneLineJoinsTrimmedLines() {
        #expect(ValueFormatting.oneLine("  first\n\n  second  \r\nthird") == "first second third")
    }
}

@Suite("ValueType", .offThePool)
struct ValueTypeTests {
    @Test(arguments: [
        (ValueType.string, " as is ", SQLiteValue.text(" as is ")),
        (.bool, "YES", .integer(1)), (.bool, "off", .integer(0)), (.bool, "1", .integer(1)), (.bool, "False", .integer(0)),
        (.int, "-9223372036854775808", .integer(.min)),
        (.double, "2", .real(2)), (.double, "1e-3", .real(0.001)),
        (.json, "  [1, 2.0]\n", .text("[1, 2.0]")), (.json, "\"s\"", .text("\"s\"")),
        (.data, "3q2+7w==", .blob(Data([0xDE, 0xAD, 0xBE, 0xEF]))),
        (.date, "2024-05-01T10:30:00Z", .real(1_714_559_400)),
        (.url, "https://swift.org/x?y=1", .text("https://swift.org/x?y=1")),
    ])
    func parses(type: ValueType, text: String, value: SQLiteValue) throws {
        #expect(try type.parse(text) == value)
    }

    @Test(arguments: [
        (ValueType.bool, "maybe", "'maybe' is not a valid bool value: use true or false (also yes/no, on/off, 1/0)"),
        (.int, "9223372036854775808", "'9223372036854775808' is not a valid int value: expected a whole number from -9223372036854775808 to 9223372036854775807"),
        (.int, "1.5", "'1.5' is not a valid int value: expected a whole number from -9223372036854775808 to 9223372036854775807"),
        (.double, " 1", "' 1' is not a valid double value: expected a decimal number such as 0.5 or 1e-3"),
        (.double, "inf", "'inf' is not a valid double value: infinity and NaN cannot be stored"),
        (.json, "[1,]", "'[1,]' is not a valid json value: invalid JSON at line 1, column 4: unexpected character ']'; expected a value"),
        (.data, "not base64!", "'not base64!' is not a valid data value: expected base64, such as 3q2+7w=="),
        (.date, "2024-05-01T10:30:00", "'2024-05-01T10:30:00' is not a valid date value: add a time zone, Z for UTC or an offset like +02:00"),
        (.url, "not a url", "'not a url' is not a valid url value: expected an absolute URL such as https://example.com/path"),
        (.url, "/relative/path", "'/relative/path' is not a valid url value: expected an absolute URL such as https://example.com/path"),
    ])
    func refuses(type: ValueType, text: String, message: String) {
        #expect(throws: FormatError(message)) { try type.parse(text) }
    }

    @Test func nowIsTheCurrentTime() throws {
        let before = Date().timeIntervalSince1970
        guard case .real(let seconds) = try ValueType.date.parse("NOW") else { Issue.record("not a REAL"); return }
        #expect(seconds >= before && seconds <= Date().timeIntervalSince1970)
    }

    @Test func namesForHelp() {
        #expect(ValueType.allNames == "bool|int|double|string|json|data|date|url")
    }

    @Test func trimmingJSONWhitespaceLeavesOtherSpaceAlone() {
        #expect(" \r\n\t[1]\u{A0} \n".trimmingJSONWhitespace() == "[1]\u{A0}")
        #expect("  ".trimmingJSONWhitespace() == "")
    }
}
