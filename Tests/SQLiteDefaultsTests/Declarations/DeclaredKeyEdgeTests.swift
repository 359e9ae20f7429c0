import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

private func nested(_ depth: Int) -> String {
    String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
}

/// Edges of declared keys: the one JSON nesting limit, and a `defaults_schema` row whose type
/// the library does not know.
@Suite("Declared keys: JSON depth and unknown types", .offThePool, .requiresSQLiteShell)
struct DeclaredKeyEdgeTests {
    /// The library's check says what the database's `json_valid` says, text by text; only
    /// nesting differs by SQLite version (2,000 levels before 3.42, 1,000 since), and the
    /// library takes the smaller everywhere. SQLite 3.42 to 3.44 also call JSON5 valid; there
    /// the check is only never more lenient than the database.
    @Test func theJSONCheckAgreesWithTheDatabase() async throws {
        let texts = ["01", "-0", "-", "1.", ".5", "1e5", "1E+5", "1e", "[1,]", #"{"a":1,}"#, " [1] ", "\t1\n",
                     "\"a\tb\"", #""\u00zz""#, #""\ud800""#, #""\x""#, "tru", "true", "nul", "[]", "{}", #"{"a"}"#,
                     "{1:2}", "1 2", " ", "\"é\"", "-01", "1.5e-3", "[1 , 2]", "\"a\"  ", "\u{0C}1", "Infinity",
                     "NaN", "+1", "0x10", "'a'", "[1]x", #"{"a":[{"b":null}]}"#, #"{"a":1,"b":[true,false,null]}"#,
                     #"["\"\\\/\b\f\n\r\t\u00e9"]"#, nested(1_000)]
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        for (index, text) in texts.enumerated() {
            try await store.set(SQLiteValue.text(text), for: DefaultsKey<SQLiteValue?>(String(format: "t%03d", index)))
        }
        let answers = try await sqlite3(directory.database, "SELECT json_valid(value) FROM defaults ORDER BY key")
            .split(separator: "\n").map { $0 == "1" }
        #expect(answers.count == texts.count)
        let takesJSON5 = try await sqlite3(directory.database, "SELECT json_valid('{a:1}')") == "1"
        for (text, valid) in zip(texts, answers) {
            if takesJSON5 {
                #expect(!JSONValidity.isValid(text) || valid, "\(text.prefix(40)): the database refuses it")
            } else {
                #expect(JSONValidity.isValid(text) == valid, "\(text.prefix(40)): the database says \(valid)")
            }
        }
        #expect(!JSONValidity.isValid(""))
    }

    /// One limit for the Swift API: 1,000 levels are accepted (by the check and by the
    /// database), 1,001 are not, where Foundation's parser stopped at 512.
    @Test func aJSONKeyTakesOneThousandLevels() throws {
        #expect(DefaultsValueKind.maximumJSONDepth == 1_000)
        #expect(DefaultsValueKind.json.accepts(.text(nested(513))))
        #expect(DefaultsValueKind.json.accepts(.text(nested(1_000))))
        #expect(!DefaultsValueKind.json.accepts(.text(nested(1_001))))
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try store.declare(DefaultsDeclaration(key: "doc", type: .json, defaultValue: .text(nested(1_000))))
        try store.set(SQLiteValue.text(nested(1_000)), for: DefaultsKey<SQLiteValue?>("doc"))
        #expect(throws: DefaultsError.self) {
            try store.declare(DefaultsDeclaration(key: "deeper", type: .json, defaultValue: .text(nested(1_001))))
        }
        #expect(try store.declaration(for: "deeper") == nil)
    }

    /// A row of a type the library does not know (written past the CHECK) no longer makes every
    /// reader of declarations fail: it is left out of `declarations()`, listed on its own, and
    /// can be undeclared. The database refuses every value for such a key.
    @Test func aDeclarationOfAnUnknownTypeIsListedApart() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsDeclaration(key: "timeout", type: .int, defaultValue: .integer(30)))
        try await sqlite3(directory.database, """
            PRAGMA ignore_check_constraints = ON;
            INSERT INTO defaults_schema(key, type) VALUES ('odd', 'xyz');
            """)
        await #expect(try store.declarations().map(\.key) == ["timeout"])
        #expect(try store.declaration(for: "odd") == nil)
        #expect(try store.declaration(for: "timeout")?.type == .int)
        #expect(try store.declarationsOfUnknownType() == ["odd": "xyz"])
        #expect(throws: DefaultsError.self) { try store.set("v", for: DefaultsKey<String>("odd", default: "")) }
        try await store.undeclare("odd")
        #expect(try store.declarationsOfUnknownType().isEmpty)
        try await store.set("v", for: DefaultsKey<String>("odd", default: ""))
    }
}
