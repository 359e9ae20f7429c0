import PrefsFormats
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("JSONDocument", .offThePool)
struct JSONDocumentTests {
    @Test func numbersKeepTheirSpelling() throws {
        let document = try JSONDocument(parsing: "[2, 2.0, -0, 1e-05, 1E+3, 12345678901234567890]")
        guard case .array(let elements, _) = document.root else { Issue.record("not an array"); return }
        #expect(elements == ["2", "2.0", "-0", "1e-05", "1E+3", "12345678901234567890"].map(JSONDocument.Node.number))
    }

    @Test func arraysAndObjectsKeepTheirSourceText() throws {
        let text = #"{ "a" : [1,  2 ], "b": {"z": 1, "y": 2} }"#
        let document = try JSONDocument(parsing: text)
        guard case .object(let members, let source) = document.root else { Issue.record("not an object"); return }
        #expect(document.text(of: source) == text)
        guard case .array(_, let arraySource) = members[0].value, case .object(_, let objectSource) = members[1].value else {
            Issue.record("unexpected members \(members)"); return
        }
        #expect(document.text(of: arraySource) == "[1,  2 ]")
        #expect(document.text(of: objectSource) == #"{"z": 1, "y": 2}"#)
    }

    @Test func duplicateMembersAreKeptInOrder() throws {
        let document = try JSONDocument(parsing: #"{"a": 1, "b": true, "a": null}"#)
        guard case .object(let members, _) = document.root else { Issue.record("not an object"); return }
        #expect(members.map(\.name) == ["a", "b", "a"])
        #expect(members.map(\.value) == [.number("1"), .bool(true), .null])
    }

    @Test func stringEscapesAreResolved() throws {
        let document = try JSONDocument(parsing: #""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00""#)
        #expect(document.root == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀"))
    }

    @Test(arguments: [
        ("[1, 2,]", "unexpected character ']'; expected a value"),
        ("{\"a\": 1,}", "expected a member name in double quotes"),
        ("// comment\n[1]", "unexpected character '/'; expected a value"),
        ("['a']", "unexpected character '''; expected a value"),
        ("[NaN]", "unexpected character 'N'; expected a value"),
        ("[Infinity]", "unexpected character 'I'; expected a value"),
        ("[01]", "numbers cannot have leading zeros"),
        ("[1.]", "expected a digit after the decimal point"),
        ("[1e]", "expected a digit in the exponent"),
        ("\"a\tb\"", "control character 0x9 in a string must be escaped"),
        (#""\x""#, "invalid escape sequence \\'x'"),
        ("[1] [2]", "unexpected text after the JSON value"),
        ("", "the text is empty; expected a JSON value"),
        ("[1, 2", "unexpected end of text inside an array"),
        ("{\"a\" 1}", "expected ':' after the member name"),
        ("tru", "unexpected character 't'; expected a value"),
    ])
    func strictRFC8259(text: String, message: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONDocument(parsing: text) }
        do {
            _ = try JSONDocument(parsing: text)
        } catch {
            #expect(error.message == message, "for \(text)")
        }
    }

    @Test("a \\u escape that leaves a UTF-16 surrogate unpaired is JSON: a string node no String can hold, its source kept")
    func loneSurrogatesAreJSON() throws {
        for text in [#""\ud800""#, #""\udc00""#, #""a\uD800b""#, #""\ud800\u0041""#, #""\udc00\ud800""#] {
            let document = try JSONDocument(parsing: text)
            #expect(document.root == .loneSurrogateString(source: 0..<text.utf8.count), "\(text)")
        }
        let array = try JSONDocument(parsing: #"[1, "\ud800", "\ud83d\ude00"]"#)
        guard case .array(let elements, let source) = array.root else { Issue.record("not an array"); return }
        #expect(elements == [.number("1"), .loneSurrogateString(source: 4..<12), .string("😀")])
        #expect(array.text(of: source) == #"[1, "\ud800", "\ud83d\ude00"]"#, "kept byte for byte")
        let object = try JSONDocument(parsing: #"{"\udc00x": 1, "y": 2}"#)
        guard case .object(let members, _) = object.root else { Issue.record("not an object"); return }
        #expect(members.map(\.nameIsExact) == [false, true])
        #expect(members[0].name == "\u{FFFD}x")
        // A broken escape after a high surrogate is still refused.
        #expect(throws: JSONSyntaxError.self) { try JSONDocument(parsing: #""\ud800\u12G4""#) }
    }

    /// The package has one JSON grammar, the library's (`StrictJSON`, walked in SQL by the
    /// triggers and held to it by StrictJSONTests): this parser takes exactly the texts a
    /// `json` key takes.
    @Test("JSONDocument takes exactly the texts a json key takes (the library's one grammar), lone surrogates included")
    func oneGrammar() {
        let texts = [
            #""\ud800""#, #""\udc00""#, #"["\ud800\u0041"]"#, #""\ud83d\ude00""#, #""\u00e9\uD800""#, #""\uD800\uD800""#,
            #""\u12G4""#, #""\x""#, "[1,]", "01", "-0", "1e5", "1E+5", "1.", ".5", "\u{FEFF}[]", " [ 1 , {\"a\" : null} ] ",
            "\"a\u{2028}b\"", "{\"a\":1,\"a\":2}", "[\"\t\"]", "\"a\u{7F}\"", "\u{00A0}1", "tru", "nul", "[true,false,null]",
            String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000),
            String(repeating: "[", count: 1_001) + String(repeating: "]", count: 1_001),
            "\"\\\"\"", "\"\\\\\"", "\"\\/\"", "{}", "[]", "{\"a\" 1}", "\r\n\t1\t", "\u{0B}1",
        ]
        for text in texts {
            let parses = (try? JSONDocument(parsing: text, wrapsValues: false)) != nil
            #expect(parses == DefaultsValueKind.json.accepts(.text(text)), "\(text.debugDescription): JSONDocument \(parses)")
        }
    }

    @Test func invalidUTF8IsRefused() {
        let error = #expect(throws: JSONSyntaxError.self) {
            try JSONDocument(parsing: [UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")])
        }
        #expect(error?.description == "invalid JSON at line 1, column 1: the text is not valid UTF-8")
    }

    @Test func errorsNameLineAndColumnInUnicodeScalars() {
        do {
            _ = try JSONDocument(parsing: "{\n  \"é😀\": [1,\n    ]\n}")
            Issue.record("parsed")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 5)
            #expect(error.description == "invalid JSON at line 3, column 5: unexpected character ']'; expected a value")
        }
        do {
            _ = try JSONDocument(parsing: "[\"é\", x]")
            Issue.record("parsed")
        } catch {
            #expect(error.line == 1)
            #expect(error.column == 7)  // é is one column though it is two UTF-8 bytes
        }
    }

    /// One limit, the library's (1,000 levels, what SQLite takes on every version), for a value
    /// on its own and for each value inside a document that holds values (an export file).
    @Test func nestingIsLimited() throws {
        #expect(JSONDocument.maximumDepth == DefaultsValueKind.maximumJSONDepth)
        #expect(JSONDocument.maximumDepth == 1_000)
        let deepest = String(repeating: "[", count: JSONDocument.maximumDepth) + String(repeating: "]", count: JSONDocument.maximumDepth)
        _ = try JSONDocument(parsing: deepest, wrapsValues: false)
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONSyntaxError.self) { try JSONDocument(parsing: tooDeep, wrapsValues: false) }
        _ = try JSONDocument(parsing: #"{"key": \#(deepest)}"#)
        #expect(throws: JSONSyntaxError.self) { try JSONDocument(parsing: #"{"key": \#(tooDeep)}"#) }
    }

    @Test func whitespaceAroundTheValueIsAllowed() throws {
        #expect(try JSONDocument(parsing: " \t\r\n null \n").root == .null)
    }
}
