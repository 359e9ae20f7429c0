#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("prefs list, export, import", .offThePool, .requiresSQLiteShell)
struct ListExportImportTests {
    /// Values of every storage class, with the edge cases an encoding could lose.
    static let tricky: [String: SQLiteValue] = [
        "int": .integer(42),
        "int.max": .integer(.max),
        "int.min": .integer(.min),
        "real.integral": .real(2),
        "real.tenth": .real(0.1),
        "real.tiny": .real(.leastNonzeroMagnitude),
        "real.huge": .real(1.7976931348623157e308),
        "real.negative-zero": .real(-0.0),
        "real.infinity": .real(.infinity),
        "text": .text("Ada"),
        "text.number": .text("42"),
        "text.empty": .text(""),
        "text.json-object": .text(#"{"name":"Ada","tags":["a","b"]}"#),
        "text.json-array": .text("[1, 2.0, \"x\"]"),
        "text.json-multiline": .text("[\n  1\n]"),
        "text.json-padded": .text(" {}"),
        "text.looks-tagged": .text(#"{"$data":"AAE="}"#),
        "text.quoted": .text(#""quoted""#),
        "text.control": .text("tab\tnewline\nnul\u{0}bell\u{7}"),
        "text.unicode": .text("größe 📐 \u{2028}"),
        "blob": .blob(Data([0, 1, 2, 0xFF])),
        "blob.empty": .blob(Data()),
        "key with spaces & ünïcode 🔑": .text("v"),
    ]

    /// Fills a database through the library, with exact values.
    func fill(_ path: String, _ rows: [String: SQLiteValue]) throws {
        let store = try DefaultsStore(path: path)
        for (key, value) in rows {
            try store.set(value, for: DefaultsKey<SQLiteValue?>(key))
        }
    }

    @Test("export → import restores every key with its exact storage class and value")
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("source.sqlite")
        try fill(source, Self.tricky)
        #expect(try storedRows(source) == Self.tricky)

        let exported = try await Prefs.succeed(["--db", source, "export"])
        let file = directory.path("export.json")
        try exported.write(toFile: file, atomically: true, encoding: .utf8)

        let target = directory.path("target.sqlite")
        #expect(try await Prefs.succeed(["--db", target, "import", file]) == "imported \(Self.tricky.count) keys\n")
        let restored = try storedRows(target)
        #expect(restored == Self.tricky)
        if case .real(let zero)? = restored["real.negative-zero"] { #expect(zero.sign == .minus) }

        // SQL sees the same classes (not only the library).
        let classes = try await SQLite3.run(target, "SELECT key || '=' || typeof(value) FROM defaults ORDER BY key;")
        let expected = Self.tricky.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.storageClass)" }
        #expect(classes.split(separator: "\n").map(String.init) == expected)

        // And exporting the copy prints the same document.
        #expect(try await Prefs.succeed(["--db", target, "export"]) == exported)
    }

    @Test("export writes numbers as numbers, REAL with a decimal point, JSON as JSON, BLOB tagged")
    func exportEncoding() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try fill(database, [
            "a.int": .integer(2), "b.real": .real(2), "c.text": .text("2"), "d.json": .text(#"{"x":[1]}"#),
            "e.blob": .blob(Data([0xDE, 0xAD])), "f.tagged": .text(#"{"$real":1}"#),
        ])
        let exported = try await Prefs.succeed(["--db", database, "export"])
        #expect(exported == """
            {
              "a.int": 2,
              "b.real": 2.0,
              "c.text": "2",
              "d.json": {"x":[1]},
              "e.blob": {"$data": "3q0="},
              "f.tagged": {"$text": "{\\"$real\\":1}"}
            }

            """)
        // It is standard JSON.
        #expect(try JSONSerialization.jsonObject(with: Data(exported.utf8)) is [String: Any])
        // list --json prints the same object.
        #expect(try await Prefs.succeed(["--db", database, "list", "--json"]) == exported)
    }

    @Test("list prints key, storage class and value, one line per key, control characters escaped")
    func listHuman() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try fill(database, ["count": .integer(42), "name": .text("Ada\nLovelace"), "ratio": .real(0.5), "token": .blob(Data([1, 2]))])
        #expect(try await Prefs.succeed(["--db", database, "list"]) == """
            count  integer  42
            name   text     Ada\\nLovelace
            ratio  real     0.5
            token  blob     AQI=

            """)
    }

    @Test("list and export of an empty or missing database print nothing or {} and create no file")
    func emptyDatabase() async throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.sqlite")
        #expect(try await Prefs.succeed(["--db", missing, "list"]) == "")
        #expect(try await Prefs.succeed(["--db", missing, "list", "--json"]) == "{}\n")
        #expect(try await Prefs.succeed(["--db", missing, "export"]) == "{}\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("import reads standard input, takes true/false as 1/0 and null as removal, keeps other keys")
    func importFromStandardInput() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try fill(database, ["keep": .text("kept"), "gone": .integer(1)])
        let input = #"{"flag": true, "off": false, "gone": null, "r": {"$real": 3}, "inf": {"$real": "-Infinity"}, "t": {"$text": "x"}}"#
        #expect(try await Prefs.succeed(["--db", database, "import", "-"], input: input) == "imported 6 keys\n")
        #expect(try storedRows(database) == [
            "keep": .text("kept"), "flag": .integer(1), "off": .integer(0), "r": .real(3), "inf": .real(-.infinity), "t": .text("x"),
        ])
    }

    /// Import files that must be refused as a whole.
    static let badImports: [(name: String, json: String, mentions: String)] = [
        ("not JSON", #"{"a": 1,"#, "invalid JSON"),
        ("empty file", "", "invalid JSON"),
        ("trailing text", #"{"a": 1} x"#, "invalid JSON"),
        ("single quotes", #"{'a': 1}"#, "invalid JSON"),
        ("an array", "[1, 2]", "expected one JSON object"),
        ("a string", #""a""#, "expected one JSON object"),
        ("integer out of range", #"{"a": 1, "b": 9223372036854775808}"#, "'b'"),
        ("double out of range", #"{"a": 1, "b": 1e400}"#, "'b'"),
        ("unknown tag", #"{"a": 1, "b": {"$date": "2024"}}"#, "'b'"),
        ("bad base64", #"{"a": 1, "b": {"$data": "***"}}"#, "'b'"),
        ("tag of wrong type", #"{"a": 1, "b": {"$data": 5}}"#, "'b'"),
        ("duplicate key", #"{"a": 1, "a": 2}"#, "'a'"),
        ("empty key", #"{"a": 1, "": 2}"#, "empty"),
    ]

    @Test("a bad import file is refused with one line, and the store is left exactly as it was",
          arguments: badImports.map(\.name))
    func importIsAllOrNothing(_ name: String) async throws {
        let bad = try #require(Self.badImports.first { $0.name == name })
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let before: [String: SQLiteValue] = ["a": .text("original"), "other": .real(1.5)]
        try fill(database, before)
        let file = directory.path("bad.json")
        try bad.json.write(toFile: file, atomically: true, encoding: .utf8)

        let line = try await Prefs.fail(["--db", database, "import", file], status: 1)
        #expect(line.contains(bad.mentions), "\(line)")
        #expect(try storedRows(database) == before)
    }

    @Test("import of a missing file or a directory fails with one line")
    func importMissingFile() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        #expect(try await Prefs.fail(["--db", database, "import", directory.path("nope.json")]).contains("no such file"))
        #expect(try await Prefs.fail(["--db", database, "import", directory.url.path]).contains("directory"))
        #expect(!FileManager.default.fileExists(atPath: database))
    }
}
#endif
