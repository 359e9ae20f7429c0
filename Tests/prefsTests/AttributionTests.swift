#if Prefs
import Foundation
import SQLiteDefaults
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
import TestScheduling
#endif

/// `--reason` and `PREFS_ACTOR` on the five commands that write, seen in `prefs history --json`
/// as an operator would look: who made each change and why.
@Suite("prefs: who and why (--reason, PREFS_ACTOR)", .offThePool)
struct AttributionTests {
    /// `prefs history --json` parsed, newest first.
    static func history(_ database: String, _ arguments: [String] = []) async throws -> [[String: Any]] {
        let output = try await Prefs.succeed(["--db", database, "history", "--json"] + arguments)
        let parsed = try JSONSerialization.jsonObject(with: Data(output.utf8))
        return try #require(parsed as? [[String: Any]], "not an array of objects: \(output)")
    }

    /// The login name as the test process sees it: getlogin(3), else the effective user's name.
    static var loginName: String? {
        if let name = getlogin(), name.pointee != 0 { return String(cString: name) }
        guard let record = getpwuid(geteuid()), let name = record.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    @Test("write, delete, rename, import and revert record PREFS_ACTOR and --reason on every change they make")
    func everyCommandRecordsActorAndReason() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let file = directory.path("import.json")
        try Data(#"{"imported": 1, "other": "x"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let steps: [(arguments: [String], actor: String, reason: String, changes: Int)] = [
            (["write", "timeout", "30", "--type", "int"], "alice", "INC-1: first value", 1),
            (["write", "timeout", "45", "--type", "int"], "bob", "INC-2: upstream is slow", 1),
            (["revert", "timeout"], "carol", "45 was too much", 1),
            (["rename", "timeout", "request.timeout"], "dave", "the new name", 2),
            (["import", file], "erin", "restore the backup", 2),
            (["delete", "other"], "frank", "not needed", 1),
        ]
        for step in steps {
            try await Prefs.succeed(["--db", database] + step.arguments + ["--reason", step.reason],
                                    environment: ["PREFS_ACTOR": step.actor])
        }
        let entries = try await Self.history(database)
        #expect(entries.count == steps.map(\.changes).reduce(0, +), "\(entries)")
        // Newest first: each step's changes, in reverse.
        var index = 0
        for step in steps.reversed() {
            for _ in 0..<step.changes {
                let entry = entries[index]
                #expect(entry["actor"] as? String == step.actor, "\(step.arguments): \(entry)")
                #expect(entry["reason"] as? String == step.reason, "\(step.arguments): \(entry)")
                // Top level, not inside the writer, which keeps its own shape.
                let writer = try #require(entry["writer"] as? [String: Any])
                #expect(Set(writer.keys).isSubset(of: ["kind", "pid", "program", "user", "host"]), "\(writer)")
                index += 1
            }
        }
        let text = try await Prefs.succeed(["--db", database, "history", "timeout"])
        let newest = try #require(text.split(separator: "\n").first)
        #expect(newest.contains(" timeout removed by library prefs ") && newest.hasSuffix(#" for dave: "the new name""#), "\(text)")
        #expect(text.contains(#" for carol: "45 was too much""#), "\(text)")
    }

    @Test("without PREFS_ACTOR the actor is the login name; without --reason there is no reason")
    func defaultActorIsTheLoginName() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "name", "Ada"], environment: ["PREFS_ACTOR": ""])
        let entry = try #require(try await Self.history(database).first)
        let expected = try #require(Self.loginName)
        #expect(entry["actor"] as? String == expected, "\(entry)")
        #expect(entry["reason"] == nil, "\(entry)")
        let text = try await Prefs.succeed(["--db", database, "history"])
        #expect(text.hasSuffix(" for \(expected)\n"), "\(text)")
    }

    @Test("a 10 KB reason with newlines, quotes and markup round-trips in JSON and is one escaped line in the text")
    func longReasonRoundTrips() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let line = "<b>markup</b> & \"quotes\" \\ back\\slash, tab\tend"
        var reason = ""
        while reason.utf8.count < 10_000 { reason += line + "\n" }
        try await Prefs.succeed(["--db", database, "write", "k", "v", "--reason", reason], environment: ["PREFS_ACTOR": "alice"])
        let entry = try #require(try await Self.history(database).first)
        #expect(entry["reason"] as? String == reason)
        let text = try await Prefs.succeed(["--db", database, "history"])
        #expect(text.split(separator: "\n").count == 1, "the reason stays on one line: \(text.prefix(300))")
        #expect(text.contains(#" for alice: "<b>markup</b> & \"quotes\" \\ back\\slash, tab\tend\n<b>"#), "\(text.prefix(300))")
        #expect(text.hasSuffix("…\"\n"), "a human line shows the start of a long reason")
    }

    @Test("a reason over 16,384 bytes, or an actor over 256, is refused with one line, and nothing is written")
    func oversizedAttributionIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let huge = String(repeating: "x", count: 16_385)
        let line = try await Prefs.fail(["--db", database, "write", "k", "v", "--reason", huge], status: 1)
        #expect(line.contains("16385 bytes") && line.contains("nothing was written"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: database), "nothing is created either")

        try await Prefs.succeed(["--db", database, "write", "k", "v"])
        for arguments in [["write", "k", "w"], ["delete", "k"], ["rename", "k", "k2"], ["revert", "k"]] {
            try await Prefs.fail(["--db", database] + arguments + ["--reason", huge], status: 1)
        }
        try await Prefs.fail(["--db", database, "write", "k", "w"], environment: ["PREFS_ACTOR": String(repeating: "a", count: 257)], status: 1)
        #expect(try storedRows(database) == ["k": .text("v")])
        #expect(try await Self.history(database).count == 1)
        // The limits themselves are accepted.
        try await Prefs.succeed(["--db", database, "write", "k", "w", "--reason", String(huge.dropLast())],
                                environment: ["PREFS_ACTOR": String(repeating: "a", count: 256)])
    }
}

/// `prefs write|delete KEY --if-seq N`: no lost updates between operators and scripts.
@Suite("prefs: conditional writes (--if-seq)", .offThePool)
struct ConditionalWriteTests {
    /// The key's version: the seq of its newest change in `prefs history --json`.
    static func version(_ database: String, _ key: String) async throws -> Int64 {
        let entries = try await AttributionTests.history(database, [key, "--limit", "1"])
        return (entries.first?["seq"] as? NSNumber)?.int64Value ?? 0
    }

    @Test("a matching version writes; a stale one exits 3 with one line naming the version now, and writes nothing")
    func staleVersionIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "timeout", "30", "--type", "int"])
        let seen = try await Self.version(database, "timeout")
        try await Prefs.succeed(["--db", database, "write", "other", "x"])  // other keys do not move it
        try await Prefs.succeed(["--db", database, "write", "timeout", "45", "--type", "int", "--if-seq", String(seen)])
        let now = try await Self.version(database, "timeout")
        #expect(now > seen)

        let line = try await Prefs.fail(["--db", database, "write", "timeout", "60", "--type", "int", "--if-seq", String(seen)], status: 3)
        #expect(line == "prefs: key 'timeout' is at version \(now), not \(seen); nothing was written")
        #expect(try storedRows(database)["timeout"] == .integer(45))

        let deleteLine = try await Prefs.fail(["--db", database, "delete", "timeout", "--if-seq", String(seen)], status: 3)
        #expect(deleteLine == "prefs: key 'timeout' is at version \(now), not \(seen); nothing was written")
        #expect(try storedRows(database)["timeout"] == .integer(45))
        #expect(try await Self.version(database, "timeout") == now, "a refused write records nothing")

        try await Prefs.succeed(["--db", database, "delete", "timeout", "--if-seq", String(now)])
        #expect(try storedRows(database)["timeout"] == nil)
    }

    @Test("--if-seq 0 creates a key that has no change kept, and exits 3 on a key that has")
    func zeroMeansCreateOnly() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "fresh", "1", "--if-seq", "0"])
        #expect(try storedRows(database)["fresh"] == .text("1"))
        let version = try await Self.version(database, "fresh")
        let line = try await Prefs.fail(["--db", database, "write", "fresh", "2", "--if-seq", "0"], status: 3)
        #expect(line == "prefs: key 'fresh' is at version \(version), not 0; nothing was written")
        #expect(try storedRows(database)["fresh"] == .text("1"))
    }

    @Test("--if-seq is checked before anything is opened: negative, or with delete --all, is a usage error")
    func badArguments() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.fail(["--db", database, "write", "k", "v", "--if-seq", "-1"])
        try await Prefs.fail(["--db", database, "delete", "--all", "--if-seq", "3"])
        try await Prefs.fail(["--db", database, "write", "k", "v", "--if-seq", "many"])
        #expect(!FileManager.default.fileExists(atPath: database))
    }
}
#endif
