#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

private func nested(_ depth: Int) -> String {
    String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
}

/// `prefs declare --allowed/--allow`, the one JSON depth limit at every door, a declaration of
/// a type prefs does not know, and how a declared bool reads.
@Suite("prefs: allowed values, JSON depth, unknown declared types, bool words", .offThePool)
struct DeclaredKeyDisplayTests {
    @Test("--allowed refuses empty and space-padded entries, for every type alike, and declares nothing")
    func allowedEntriesAreChecked() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        var line = try await Prefs.fail(["--db", db, "declare", "mode", "--type", "string", "--allowed", ""], status: 1)
        #expect(line.contains("empty entry") && line.contains("--allow"), "\(line)")
        line = try await Prefs.fail(["--db", db, "declare", "theme", "--type", "string", "--allowed", "light, dark"], status: 1)
        #expect(line.contains("' dark'") && line.contains("spaces"), "\(line)")
        try await Prefs.fail(["--db", db, "declare", "theme", "--type", "string", "--allowed", "light,,dark"], status: 1)
        try await Prefs.fail(["--db", db, "declare", "theme", "--type", "url", "--allowed", "https://a.example/ ,https://b.example/"], status: 1)
        line = try await Prefs.fail(["--db", db, "declare", "level", "--type", "int", "--allowed", "1, 2"], status: 1)
        #expect(line.contains("' 2'") && line.contains("spaces"), "\(line)")
        try await Prefs.fail(["--db", db, "describe", "theme"], status: 1)
    }

    @Test("--allow takes one value as it is, commas and spaces included, repeatable, with --allowed")
    func allowTakesAnyValue() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "declare", "pair", "--type", "string", "--allowed", "a,b",
                                 "--allow", "x,y", "--allow", " padded", "--allow", "", "--allow", "a"])
        let json = try await Prefs.succeed(["--db", db, "describe", "pair", "--json"])
        #expect(json == #"{\#n  "pair": {"type": "string", "allowed": ["a", "b", "x,y", " padded", ""]}\#n}\#n"#, "\(json)")
        try await Prefs.succeed(["--db", db, "write", "pair", "x,y"])
        try await Prefs.fail(["--db", db, "write", "pair", "x"], status: 1)
        // An int key's --allow is read as an int: " 2" is refused there as in --allowed.
        try await Prefs.fail(["--db", db, "declare", "level", "--type", "int", "--allow", " 2"], status: 1)
        try await Prefs.succeed(["--db", db, "declare", "level", "--type", "int", "--allow", "2", "--allowed", "3,4"])
        try await Prefs.succeed(["--db", db, "write", "level", "3"])
    }

    @Test("JSON nests 1,000 levels at every door: write --type json, a declared json key, import, export")
    func oneJSONDepthLimit() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "write", "deep", nested(1_000), "--type", "json"])
        var line = try await Prefs.fail(["--db", db, "write", "deeper", nested(1_001), "--type", "json"], status: 1)
        #expect(line.contains("1000 levels"), "\(line)")
        try await Prefs.succeed(["--db", db, "declare", "doc", "--type", "json"])
        try await Prefs.succeed(["--db", db, "write", "doc", nested(1_000)])
        line = try await Prefs.fail(["--db", db, "write", "doc", nested(1_001)], status: 1)
        #expect(line.contains("'doc'") && line.contains("1000 levels"), "\(line)")
        // What export writes, import takes back: the deepest value is embedded one level down.
        let exported = try await Prefs.succeed(["--db", db, "export"])
        #expect(exported.contains(nested(1_000)))
        let other = directory.path("e.sqlite")
        try await Prefs.succeed(["--db", other, "import", "-"], input: exported)
        #expect(try await Prefs.succeed(["--db", other, "read", "deep"]) == nested(1_000) + "\n")
        line = try await Prefs.fail(["--db", other, "import", "-"], input: #"{"k": \#(nested(1_001))}"#, status: 1)
        #expect(line.contains("1000 levels"), "\(line)")
    }

    @Test("a declaration of an unknown type is shown as such; list, describe and history go on")
    func unknownDeclaredType() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        // The row goes in while the key is unset: the schema's triggers refuse a declaration its
        // stored value breaks, and no value fits an unknown type.
        try await Prefs.succeed(["--db", db, "write", "odd", "before"])
        try await Prefs.succeed(["--db", db, "delete", "odd"])
        try await Prefs.succeed(["--db", db, "declare", "timeout", "--type", "int", "--default", "30"])
        try await SQLite3.run(db, "PRAGMA ignore_check_constraints = ON; INSERT INTO defaults_schema(key, type) VALUES ('odd', 'xyz');")
        let list = try await Prefs.succeed(["--db", db, "list", "--declared"])
        #expect(list.contains(#"[declared unknown type "xyz"]"#) && list.contains("odd "), "\(list)")
        #expect(list.contains("timeout") && list.contains("[declared int]"), "\(list)")
        let described = try await Prefs.succeed(["--db", db, "describe"])
        #expect(described.contains(#"unknown type "xyz""#) && described.contains("timeout"), "\(described)")
        let json = try await Prefs.succeed(["--db", db, "describe", "--json"])
        #expect(json.contains(#""odd": {"type": "xyz", "unknownType": true}"#), "\(json)")
        let history = try await Prefs.succeed(["--db", db, "history"])
        #expect(history.contains(#"odd [unknown type "xyz"] = before"#) && history.contains(#"odd [unknown type "xyz"] removed"#), "\(history)")
        try await Prefs.succeed(["--db", db, "history", "--json"])
        try await Prefs.fail(["--db", db, "write", "odd", "after"], status: 1)
        try await Prefs.succeed(["--db", db, "undeclare", "odd"])
        try await Prefs.succeed(["--db", db, "write", "odd", "after"])
    }

    @Test("a declared bool reads false/true in list, describe and history; --json stays as stored")
    func declaredBoolWords() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "declare", "beta", "--type", "bool", "--default", "true"])
        try await Prefs.succeed(["--db", db, "declare", "gamma", "--type", "bool", "--default", "false"])
        try await Prefs.succeed(["--db", db, "write", "beta", "off"])
        try await Prefs.succeed(["--db", db, "write", "plain", "1", "--type", "bool"])
        let list = try await Prefs.succeed(["--db", db, "list", "--declared"])
        let lines = list.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("beta") && $0.contains("integer  false  [declared bool]") }, "\(list)")
        #expect(lines.contains { $0.hasPrefix("gamma") && $0.contains("(default false)") }, "\(list)")
        #expect(lines.contains { $0.hasPrefix("plain") && $0.hasSuffix("integer  1") }, "\(list)")
        let described = try await Prefs.succeed(["--db", db, "describe", "beta"])
        #expect(described.contains("default  true") && described.contains("value    false"), "\(described)")
        #expect(try await Prefs.succeed(["--db", db, "describe", "beta", "--json"]).contains(#""default": 1, "value": 0"#))
        #expect(try await Prefs.succeed(["--db", db, "list", "--json"]).contains(#""beta": 0"#))
        let history = try await Prefs.succeed(["--db", db, "history", "beta"])
        #expect(history.contains("beta [bool] = false (integer)"), "\(history)")
    }
}
#endif
