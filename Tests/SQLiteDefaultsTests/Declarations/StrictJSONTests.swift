import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

/// "Valid JSON" for a `json` key has one definition, written twice: in SQL (the schema's
/// validator, for every SQL client) and in Swift (``StrictJSON``, for this library's
/// connections). These tests keep the two equal, and say where both differ from SQLite's own
/// `json_valid` on purpose.
@Suite("Strict JSON: the schema's validator and StrictJSON agree", .offThePool, .requiresSQLiteShell)
struct StrictJSONTests {
    static let fixed: [String] = [
        "", " ", "{}", "[]", "[", "]", "{\"a\":}", "{\"a\" 1}", "{,}", "[1,]", "[,1]", "01", "-", "1.", ".5", "1e", "1e+",
        "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"a\tb\"", "\"a\nb\"", "\u{FEFF}{}", "tru", "nul", "truex", "{\"a\":1}x",
        "  [ 1 , 2 ]  ", "\"" + String(repeating: "a", count: 300) + "\"", "\"" + String(repeating: "a", count: 255) + "\\\"\"",
        "\"" + String(repeating: "é", count: 200) + "\"", "\"" + String(repeating: "a", count: 255),
        String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000),
        String(repeating: "[", count: 1_001) + String(repeating: "]", count: 1_001),
        "{\"a\":[1,{\"b\":null}],\"c\":\"\\\\\"}", "\"\\\\\"", "\"\\\"", "{'a':1}", "{a:1}", "[1,2,]", "0x10", "Infinity", "NaN",
        "[1 2]", "\"\"", "\"\\/\"", "-01", "1E-5", "[-]", "-0", "0e5", "[1,2] // c", "/* c */ 1", "+1", "\"\\u00e9\\uD800\"",
        "\u{00A0}1", "\"a\u{2028}b\"", "{\"a\":1,\"a\":2}", "123456789012345678901234567890", "[true,false,null]", "\r\n\t1\t",
    ]

    /// Valid documents, then one to three random edits of most of them: a seeded, repeatable mix
    /// of valid and nearly valid text.
    static func generated(count: Int, seed: UInt64) -> [String] {
        var random = SeededRandom(seed: seed)
        let atoms = ["0", "-0", "1.5", "-12e+3", "1E5", "true", "false", "null", "\"a\"", "\"\\u00e9x\"", "\"\\n\"", "\"é\"", "0.0e-0"]
        func document(_ depth: Int) -> String {
            let roll = Double.random(in: 0..<1, using: &random)
            if depth > 4 || roll < 0.3 { return atoms.randomElement(using: &random)! }
            let count = Int.random(in: 0...3, using: &random)
            if roll < 0.65 { return "[" + (0..<count).map { _ in document(depth + 1) }.joined(separator: ",") + "]" }
            return "{" + (0..<count).map { "\"k\($0)\":" + document(depth + 1) }.joined(separator: ",") + "}"
        }
        let alphabet = Array("{}[]\",:\\ \t\n\r0123456789-+.eEtrufalsn/bx'é\u{01}\u{1F}\u{FEFF}").map(String.init)
        return (0..<count).map { _ in
            var characters = Array(document(0)).map(String.init)
            guard Double.random(in: 0..<1, using: &random) < 0.7 else { return characters.joined() }
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 0...characters.count, using: &random)
                let edit = Int.random(in: 0..<3, using: &random)
                let replacement = alphabet.randomElement(using: &random)!
                if characters.isEmpty || edit == 1 {
                    characters.insert(replacement, at: min(position, characters.count))
                } else if edit == 0 {
                    characters.remove(at: min(position, characters.count - 1))
                } else {
                    characters[min(position, characters.count - 1)] = replacement
                }
            }
            return characters.joined()
        }
    }

    @Test("a SQL client's write, this library's write and StrictJSON take the same texts, on this SQLite")
    func sqlAndSwiftAgree() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsDeclaration(key: "j", type: .json))
        let candidates = Self.fixed + Self.generated(count: 400, seed: 20261126)
        // One shell for every attempt: line 2n writes candidate n, line 2n+1 prints json_valid's
        // own answer (which differs on purpose, see below); errors name their line.
        var script: [String] = []
        for (index, text) in candidates.enumerated() {
            let hex = text.utf8.map { String(format: "%02x", $0) }.joined()
            script.append("INSERT INTO defaults VALUES ('j', CAST(X'\(hex)' AS TEXT)) ON CONFLICT(key) DO UPDATE SET value = excluded.value;")
            script.append("SELECT \(index), json_valid(CAST(X'\(hex)' AS TEXT));")
        }
        let result = try await runProcess(try sqlite3Path(), ["-batch", directory.database], input: script.joined(separator: "\n") + "\n")
        var refusedBySQL: Set<Int> = []
        for line in result.error.split(separator: "\n") {
            guard let range = line.range(of: "near line "), let colon = line[range.upperBound...].firstIndex(of: ":"),
                  let number = Int(line[range.upperBound..<colon]) else { continue }
            #expect(line.contains("declared key \"j\" is json"), "\(line)")
            refusedBySQL.insert((number - 1) / 2)
        }
        var jsonValid: [Int: Bool] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "|")
            if parts.count == 2, let index = Int(parts[0]) { jsonValid[index] = parts[1] == "1" }
        }
        let key = DefaultsKey<String>("j", default: "")
        var differences = 0
        for (index, text) in candidates.enumerated() {
            let swift = StrictJSON.isValid(text)
            let sql = !refusedBySQL.contains(index)
            let library: Bool
            do { try await store.set(text, for: key); library = true } catch { library = false }
            #expect(swift == sql && sql == library,
                    "SQLite \(SQLiteLibrary.version): \(text.debugDescription): Swift \(swift), SQL client \(sql), library \(library)")
            // json_valid differs only beyond 1,000 levels (it nests 2,000 before 3.45).
            if jsonValid[index] != sql, !text.hasPrefix(String(repeating: "[", count: 1_001)) {
                differences += 1
                Issue.record("SQLite \(SQLiteLibrary.version): json_valid says \(String(describing: jsonValid[index])) for \(text.debugDescription), the schema \(sql)")
            }
        }
        #expect(differences == 0)
    }

    @Test("every schema object's text fits the smallest length limit a store gives SQLite")
    func schemaFitsTheLengthFloor() async throws {
        // SQLITE_LIMIT_LENGTH caps the schema's own text too: a store configured with a small
        // maximumValueLength could not write at all if the JSON check's trigger did not fit.
        let directory = try TemporaryDirectory()
        var configuration = DefaultsStore.Configuration()
        configuration.maximumValueLength = 1
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        store[DefaultsKey<Int>("count", default: 0)] = 3
        #expect(store[DefaultsKey<Int>("count", default: 0)] == 3)
        let longest = Int(try await sqlite3(directory.database, "SELECT max(length(sql)) FROM sqlite_master")) ?? .max
        #expect(longest < StoreOpener.sqliteLengthFloor / 2, "the longest schema text is \(longest) bytes")
    }

    @Test("the SQL validator reads a long value in time proportional to its length")
    func longValues() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsDeclaration(key: "j", type: .json))
        // 64 KiB through the shell: quadratic reading (a value read from its row at every step)
        // took minutes; linear takes well under the deadline. Not a timing assertion: the shell
        // is given ten minutes by runProcess, and the write must simply be accepted.
        let items = (0..<1_000).map { "{\"name\":\"item \($0)\",\"tags\":[\"a\",\"b\"],\"on\":true,\"n\":\($0).5}" }
        let document = "[" + items.joined(separator: ",") + "]"
        let hex = document.utf8.map { String(format: "%02x", $0) }.joined()
        try await sqlite3(directory.database, "INSERT INTO defaults VALUES ('j', CAST(X'\(hex)' AS TEXT));")
        #expect(try store.value(for: DefaultsKey<String>("j", default: "")) == document)
        let broken = String(document.dropLast())
        let brokenHex = broken.utf8.map { String(format: "%02x", $0) }.joined()
        let error = await #expect(throws: DefaultsError.self) {
            try await sqlite3(directory.database, "UPDATE defaults SET value = CAST(X'\(brokenHex)' AS TEXT) WHERE key = 'j';")
        }
        #expect(error?.message.contains("declared key \"j\" is json, so a value that is not valid JSON is refused") == true)
    }
}
