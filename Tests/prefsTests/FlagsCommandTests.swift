#if Prefs && Flags
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// `prefs flags load|eval|list`, run as the real binary.
@Suite(.offThePool) struct FlagsCommandTests {
    static let flagSet = #"""
        {"$evaluators": {"staff": {"ends_with": [{"var": "email"}, "@example.com"]}},
         "metadata": {"owner": "web"},
         "flags": {
           "beta": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                    "targeting": {"if": [{"$ref": "staff"}, "on", null]}},
           "color": {"state": "ENABLED", "variants": {"red": "red", "blue": "blue"}, "defaultVariant": "red",
                     "targeting": {"fractional": [["red", 50], ["blue", 50]]}},
           "off": {"state": "DISABLED", "variants": {"a": 1}, "defaultVariant": "a"}
         }}
        """#

    func makeFile(_ text: String, in directory: URL, name: String = "flags.json") throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func eval(_ db: String, _ arguments: [String]) async throws -> [String: Any] {
        let output = try await Prefs.succeed(["flags", "eval", "--db", db] + arguments + ["--json"])
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return try #require(object, "one JSON object: \(output)")
    }

    @Test func loadEvalAndList() async throws {
        let directory = try temporaryDirectory()
        let db = directory.appendingPathComponent("db.sqlite").path
        let file = try makeFile(Self.flagSet, in: directory)
        let loaded = try await Prefs.succeed(["flags", "load", "--db", db, file, "--reason", "first"])
        #expect(loaded == "3 flags: 5 written, 0 removed, 0 unchanged\n")
        let staff = try await eval(db, ["beta", "--type", "boolean", "--default", "false", "--context", #"{"targetingKey": "u1", "email": "a@example.com"}"#])
        #expect(staff["value"] as? Bool == true)
        #expect(staff["reason"] as? String == "TARGETING_MATCH")
        #expect(staff["variant"] as? String == "on")
        #expect(staff["errorCode"] == nil)
        #expect((staff["metadata"] as? [String: Any])?["owner"] as? String == "web")
        let other = try await eval(db, ["beta", "--type", "boolean", "--default", "true", "--context", #"{"email": "b@else.org"}"#])
        #expect(other["value"] as? Bool == false && other["reason"] as? String == "DEFAULT")
        let disabled = try await eval(db, ["off", "--type", "integer", "--default", "7"])
        #expect(disabled["value"] as? Int == 7 && disabled["reason"] as? String == "DISABLED" && disabled["variant"] == nil)
        let missing = try await eval(db, ["nope", "--type", "string", "--default", "x"])
        #expect(missing["value"] as? String == "x" && missing["reason"] as? String == "ERROR" && missing["errorCode"] as? String == "FLAG_NOT_FOUND")
        let mismatch = try await eval(db, ["color", "--type", "integer", "--default", "1", "--context", #"{"targetingKey": "u1"}"#])
        #expect(mismatch["errorCode"] as? String == "TYPE_MISMATCH" && mismatch["value"] as? Int == 1)
        let listed = try await Prefs.succeed(["flags", "list", "--db", db])
        #expect(listed == "beta\tENABLED\toff\ncolor\tENABLED\tred\noff\tDISABLED\ta\n")
        // Loading the same file again writes nothing: no new history entry.
        let historyBefore = try await Prefs.succeed(["history", "--db", db])
        #expect(try await Prefs.succeed(["flags", "load", "--db", db, file]) == "3 flags: 0 written, 0 removed, 5 unchanged\n")
        #expect(try await Prefs.succeed(["history", "--db", db]) == historyBefore)
    }

    @Test func badArgumentsExit64() async throws {
        let directory = try temporaryDirectory()
        let db = directory.appendingPathComponent("db.sqlite").path
        for arguments in [
            ["beta", "--type", "bool", "--default", "true"],
            ["beta", "--type", "boolean", "--default", "maybe"],
            ["beta", "--type", "integer", "--default", "1.5"],
            ["beta", "--type", "object", "--default", "3"],
            ["beta", "--type", "boolean", "--default", "true", "--context", "[1]"],
            ["beta", "--type", "boolean", "--default", "true", "--context", "{"],
        ] {
            let result = try await Prefs.run(["flags", "eval", "--db", db] + arguments + ["--json"])
            #expect(result.status == 64, "\(arguments): \(result)")
        }
    }

    @Test func aBadFileExits1WithOneLineAndChangesNothing() async throws {
        let directory = try temporaryDirectory()
        let db = directory.appendingPathComponent("db.sqlite").path
        try await Prefs.succeed(["flags", "load", "--db", db, try makeFile(Self.flagSet, in: directory)])
        let before = try await Prefs.succeed(["export", "--db", db])
        let bad = [
            "{not json",
            #"{"flags": {"a": {"state": "SOMETIMES", "variants": {"x": 1}}}}"#,
            #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1}, "defaultVariant": "z"}}}"#,
            #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1, "y": true}}}}"#,
            #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1}, "targeting": {"$ref": "gone"}}}}"#,
        ]
        for (index, text) in bad.enumerated() {
            let file = try makeFile(text, in: directory, name: "bad\(index).json")
            let line = try await Prefs.fail(["flags", "load", "--db", db, file], status: 1)
            #expect(line.hasPrefix("prefs: "), "\(line)")
        }
        #expect(try await Prefs.succeed(["export", "--db", db]) == before)
    }

    @Test func twoProcessesLoadingAtOnceLeaveOneSetWhole() async throws {
        let directory = try temporaryDirectory()
        let db = directory.appendingPathComponent("db.sqlite").path
        func set(_ prefix: String) -> String {
            let flags = (0..<40).map { #""\#(prefix)\#($0)": {"state": "ENABLED", "variants": {"v": "\#(prefix)"}, "defaultVariant": "v"}"# }
            return #"{"flags": {"# + flags.joined(separator: ",") + "}}"
        }
        let first = try makeFile(set("a"), in: directory, name: "a.json")
        let second = try makeFile(set("b"), in: directory, name: "b.json")
        try await Prefs.succeed(["flags", "load", "--db", db, first])
        async let one = Prefs.run(["flags", "load", "--db", db, first])
        async let two = Prefs.run(["flags", "load", "--db", db, second])
        let results = try await [one, two]
        #expect(results.allSatisfy { $0.status == 0 }, "\(results)")
        let listed = try await Prefs.succeed(["flags", "list", "--db", db]).split(separator: "\n")
        let prefixes = Set(listed.map { $0.prefix(1) })
        #expect(listed.count == 40 && prefixes.count == 1, "a mixture: \(listed)")
    }
}
#endif
