#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// The codings behind the commands, case by case, through the binary.
@Suite("value coding: export JSON, JSON parsing, ISO 8601 dates, REAL text", .offThePool)
struct ValueCodingTests {
    static let encodings: [(SQLiteValue, String)] = [
        (.integer(0), "0"),
        (.integer(-7), "-7"),
        (.real(2), "2.0"),
        (.real(-0.5), "-0.5"),
        (.real(1e21), "1e+21"),
        (.real(1e-7), "1e-07"),
        (.real(.infinity), #"{"$real": "Infinity"}"#),
        (.text("plain"), #""plain""#),
        (.text("line\nbreak \"quoted\" \\ \u{1}"), #""line\nbreak \"quoted\" \\ \u0001""#),
        (.text(#"{"a":1}"#), #"{"a":1}"#),
        (.text("[]"), "[]"),
        (.text("[\n]"), #""[\n]""#),
        (.text(#"{"$data":"AA=="}"#), #"{"$text": "{\"$data\":\"AA==\"}"}"#),
        (.text("{not json}"), #""{not json}""#),
        (.blob(Data([0xFF])), #"{"$data": "/w=="}"#),
    ]

    @Test("read --json prints each storage class as documented, and import takes it back exactly",
          arguments: 0..<encodings.count)
    func encoding(_ index: Int) async throws {
        let (value, json) = Self.encodings[index]
        let directory = try TemporaryDirectory()
        let source = directory.path("source.sqlite")
        try await DefaultsStore(path: source).set(value, for: DefaultsKey<SQLiteValue?>("k"))
        #expect(try await Prefs.succeed(["--db", source, "read", "k", "--json"]) == json + "\n")

        let target = directory.path("target.sqlite")
        try await Prefs.succeed(["--db", target, "import", "-"], input: #"{"k": "# + json + "}")
        #expect(try storedRows(target) == ["k": value])
    }

    @Test("JSON strings decode every escape, including surrogate pairs")
    func stringEscapes() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "import", "-"], input: #"{"k": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "\u006b2": 1}"#)
        #expect(try storedRows(database) == ["k": .text("a\"\\/\u{8}\u{C}\n\r\té😀"), "k2": .integer(1)])
    }

    @Test("import keeps the exact text of nested JSON and the spelling of numbers")
    func nestedSourceKept() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let input = """
            { "list" : [1, 2.0 ,{"b":null}],
              "object": {
                "nested": true
              },
              "real": -0.0e+1 }
            """
        try await Prefs.succeed(["--db", database, "import", "-"], input: input)
        #expect(try storedRows(database) == [
            "list": .text(#"[1, 2.0 ,{"b":null}]"#),
            "object": .text("{\n    \"nested\": true\n  }"),
            "real": .real(-0.0),
        ])
    }

    static let malformedJSON: [(String, String)] = [
        ("", "the text is empty"),
        ("{", "line 1, column 2"),
        ("[1,]", "line 1, column 4"),
        ("{\"a\":1,}", "line 1, column 8"),
        ("01", "leading zeros"),
        ("1.", "decimal point"),
        ("\"\\x\"", "escape"),
        ("\"tab\there\"", "control character"),
        ("NaN", "line 1, column 1"),
        ("[1]\n  x", "line 2, column 3"),
        (String(repeating: "[", count: 1_001), "nest"),
    ]

    @Test("write --type json takes a \\u escape that leaves a surrogate unpaired, as the library's json keys do, and stores the text as given")
    func loneSurrogateIsJSON() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "declare", "j", "--type", "json"])
        for text in [#""\ud800""#, #"["\udc00", 1]"#] {
            try await Prefs.succeed(["--db", database, "write", "j", "--type", "json", "--", text])
            #expect(try storedRows(database)["j"] == .text(text))
        }
    }

    @Test("write --type json refuses invalid JSON with a line, column and reason", arguments: 0..<malformedJSON.count)
    func invalidJSON(_ index: Int) async throws {
        let (text, mentions) = Self.malformedJSON[index]
        let directory = try TemporaryDirectory()
        let line = try await Prefs.fail(["--db", directory.path("defaults.sqlite"), "write", "k", "--type", "json", "--", text])
        #expect(line.contains(mentions), "\(line)")
    }

    static let dates: [(String, Double)] = [
        ("1970-01-01T00:00:00Z", 0),
        ("2024-05-01T10:30:00Z", 1_714_559_400),
        ("2024-05-01t10:30z", 1_714_559_400),
        ("2024-05-01 12:30:00+02:00", 1_714_559_400),
        ("2024-05-01T05:00:00-0530", 1_714_559_400),
        ("2024-05-01T10:30:00.125Z", 1_714_559_400.125),
        ("2024-02-29", 1_709_164_800),
        ("1969-12-31T23:59:59Z", -1),
    ]

    @Test("write --type date takes ISO 8601 and stores REAL seconds since 1970", arguments: 0..<dates.count)
    func iso8601(_ index: Int) async throws {
        let (text, seconds) = Self.dates[index]
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "when", text, "--type", "date"])
        #expect(try storedRows(database) == ["when": .real(seconds)])
    }

    @Test("write --type date refuses what is not ISO 8601 or has no time zone", arguments: [
        "2023-02-29", "2024-13-01", "2024-05-01T10:30:00", "2024-05-01T10:30:60Z", "2024-5-1", "2024-05-01T10:30:00Z junk",
    ])
    func invalidDate(_ text: String) async throws {
        let directory = try TemporaryDirectory()
        try await Prefs.fail(["--db", directory.path("defaults.sqlite"), "write", "when", text, "--type", "date"])
    }

    @Test("read prints REAL as the shortest text that reads back exactly, marked by '.' or 'e'",
          arguments: [2.0, 0.1, 1.0 / 3.0, 1e300, Double.leastNonzeroMagnitude, -0.0, 123_456_789_012_345_680])
    func realText(_ number: Double) async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await DefaultsStore(path: database).set(.real(number), for: DefaultsKey<SQLiteValue?>("r"))
        let text = try await Prefs.succeed(["--db", database, "read", "r"]).dropLast()
        #expect(Double(text) == number)
        #expect(text.contains(".") || text.contains("e"), "\(text)")
    }
}
#endif
