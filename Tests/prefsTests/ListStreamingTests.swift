#if Prefs
import Foundation
import PrefsFormats
import SQLiteDefaults
import Testing
import TestScheduling

/// `prefs list [--prefix P]` and `prefs export` stream the table from one snapshot: the same
/// output as before for every shape, a prefix that filters where the rows are read.
@Suite("prefs list --prefix and a streamed export", .offThePool)
struct ListStreamingTests {
    let directory: TemporaryDirectory
    let database: String
    init() throws {
        directory = try TemporaryDirectory()
        database = directory.path("defaults.sqlite")
    }

    func fill(_ keys: [String]) throws -> DefaultsStore {
        let store = try DefaultsStore(path: database)
        try store.transaction { transaction in
            for (index, key) in keys.enumerated() { try transaction.set(.integer(Int64(index)), for: DefaultsKey<SQLiteValue?>(key)) }
        }
        return store
    }

    @Test("--prefix lists the keys that start with it (a whole key and its extensions), in key order, with --declared and --json too")
    func prefix() async throws {
        let store = try fill(["user.1", "user.1.theme", "user.10", "user.2", "other"])
        try await store.declare(DefaultsDeclaration(key: "user.1.font", type: .string, defaultValue: .text("Menlo")))
        try await store.declare(DefaultsDeclaration(key: "user.3", type: .int))
        let listed = try await Prefs.succeed(["--db", database, "list", "--prefix", "user.1"])
        #expect(listed.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") } == ["user.1", "user.1.theme", "user.10"])
        let declared = try await Prefs.succeed(["--db", database, "list", "--declared", "--prefix", "user.1"])
        let lines = declared.split(separator: "\n").map(String.init)
        #expect(lines.map { String($0.split(separator: " ").first ?? "") } == ["user.1", "user.1.font", "user.1.theme", "user.10"])
        #expect(lines[1].contains("unset") && lines[1].contains("(default Menlo)") && lines[1].hasSuffix("[declared string]"))
        #expect(try await Prefs.succeed(["--db", database, "list", "--json", "--prefix", "user.1."]) == "{\n  \"user.1.theme\": 1\n}\n")
        #expect(try await Prefs.succeed(["--db", database, "list", "--json", "--prefix", "none"]) == "{}\n")
        #expect(try await Prefs.succeed(["--db", database, "list", "--prefix", "none"]) == "")
        let all = try await Prefs.succeed(["--db", database, "list", "--declared"])
        #expect(all.split(separator: "\n").count == 7, "\(all)")
    }

    @Test("The key column is as wide as the widest key, at most 40, as before the list streamed")
    func keyWidth() async throws {
        _ = try fill(["a", "bbb", String(repeating: "k", count: 60)])
        let lines = try await Prefs.succeed(["--db", database, "list"]).split(separator: "\n")
        #expect(lines[0] == "a" + String(repeating: " ", count: 39) + "  integer  0")
        #expect(lines[2].hasPrefix(String(repeating: "k", count: 60) + "  integer"))
        _ = try fill(["cc"])
        let narrow = try await Prefs.succeed(["--db", database, "list", "--prefix", "c"])
        #expect(narrow == "cc  integer  0\n")
    }

    @Test("export of 20,000 keys is the JSON the whole-table encoder writes, to standard output and to a file")
    func exportMatches() async throws {
        let keys = (0..<20_000).map { "user.\($0).theme" }
        let store = try fill(keys)
        let expected = ExportFormat.encodeObject(try await store.entries().map { ($0.key, $0.value) }) + "\n"
        #expect(try await Prefs.succeed(["--db", database, "export"]) == expected)
        let file = directory.path("out.json")
        try await Prefs.succeed(["--db", database, "export", file])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == expected)
        let roundTrip = directory.path("copy.sqlite")
        try await Prefs.succeed(["--db", roundTrip, "import", file])
        #expect(try await DefaultsStore(path: roundTrip).entries() == store.entries())
    }

    @Test("export refuses a key that is not UTF-8 before writing anything, and leaves an existing file as it was")
    func exportRefusesFirst() async throws {
        _ = try fill(["a", "b"])
        try await SQLite3.run(database, "INSERT INTO defaults(key, value) VALUES (CAST(x'ff6b6579' AS TEXT), 'v')")
        let file = directory.path("out.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        let line = try await Prefs.fail(["--db", database, "export", file])
        #expect(line.contains("not valid UTF-8"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "old")
        try await Prefs.fail(["--db", database, "export"])
    }
}
#endif
