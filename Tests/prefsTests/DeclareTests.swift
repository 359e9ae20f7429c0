#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("prefs declare, undeclare, describe; write, read and list of declared keys", .offThePool)
struct DeclareTests {
    @Test("declare from the shell, then write infers the type and refuses what does not fit")
    func declareThenWrite() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "declare", "timeout", "--type", "int", "--default", "30", "--summary", "Request timeout, in seconds"])
        try await Prefs.succeed(["--db", db, "write", "timeout", "45"])
        #expect(try DefaultsStore(path: db).value(for: DefaultsKey<SQLiteValue?>("timeout")) == .integer(45))
        var line = try await Prefs.fail(["--db", db, "write", "timeout", "abc"], status: 1)
        #expect(line.contains("'timeout'") && line.contains("declared int"), "\(line)")
        line = try await Prefs.fail(["--db", db, "write", "timeout", "45", "--type", "string"], status: 1)
        #expect(line.contains("'timeout'") && line.contains("declared int") && line.contains("--type string"), "\(line)")
        // A --type that fits the declaration is fine.
        try await Prefs.succeed(["--db", db, "write", "timeout", "50", "--type", "int"])
        #expect(try await Prefs.succeed(["--db", db, "read", "timeout"]) == "50\n")
    }

    @Test("read of an unset declared key prints its default; of an unset undeclared key, exit 1")
    func readPrintsTheDefault() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "declare", "theme", "--type", "string", "--default", "light", "--allowed", "light,dark"])
        #expect(try await Prefs.succeed(["--db", db, "read", "theme"]) == "light\n")
        try await Prefs.fail(["--db", db, "read", "other"], status: 1)
        let line = try await Prefs.fail(["--db", db, "write", "theme", "blue"], status: 1)
        #expect(line.contains("'theme'") && line.contains("light, dark"), "\(line)")
        try await Prefs.succeed(["--db", db, "write", "theme", "dark"])
        try await Prefs.succeed(["--db", db, "delete", "theme"])
        #expect(try await Prefs.succeed(["--db", db, "read", "theme"]) == "light\n")
    }

    @Test("a declaration the stored value breaks exits 1 and changes nothing")
    func conflictingDeclare() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "write", "timeout", "abc"])
        let line = try await Prefs.fail(["--db", db, "declare", "timeout", "--type", "int"], status: 1)
        #expect(line.contains("'timeout'") && line.contains("text"), "\(line)")
        #expect(try await Prefs.succeed(["--db", db, "describe", "--json"]) == "{}\n")
        try await Prefs.fail(["--db", db, "declare", "n", "--type", "int", "--default", "x"], status: 1)
        try await Prefs.fail(["--db", db, "declare", "n", "--type", "bool", "--allowed", "1"], status: 1)
    }

    @Test("describe shows every declared key, set or not, in the contract's JSON shape")
    func describe() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "declare", "timeout", "--type", "int", "--default", "30", "--summary", "Request timeout"])
        try await Prefs.succeed(["--db", db, "declare", "theme", "--type", "string", "--allowed", "light,dark"])
        try await Prefs.succeed(["--db", db, "write", "timeout", "45"])
        let json = try await Prefs.succeed(["--db", db, "describe", "--json"])
        #expect(json == """
            {
              "theme": {"type": "string", "allowed": ["light", "dark"]},
              "timeout": {"type": "int", "default": 30, "summary": "Request timeout", "value": 45}
            }

            """)
        let text = try await Prefs.succeed(["--db", db, "describe", "timeout"])
        #expect(text.contains("type     int") && text.contains("default  30") && text.contains("value    45"), "\(text)")
        try await Prefs.fail(["--db", db, "describe", "missing"], status: 1)
    }

    @Test("list marks declared keys, and --declared shows the unset ones")
    func list() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "declare", "timeout", "--type", "int", "--default", "30"])
        try await Prefs.succeed(["--db", db, "declare", "beta", "--type", "bool"])
        try await Prefs.succeed(["--db", db, "write", "name", "Ada"])
        try await Prefs.succeed(["--db", db, "write", "beta", "yes"])
        let plain = try await Prefs.succeed(["--db", db, "list"])
        #expect(plain == "beta  integer  true  [declared bool]\nname  text     Ada\n", "\(plain)")
        let all = try await Prefs.succeed(["--db", db, "list", "--declared"])
        #expect(all.contains("timeout  unset") && all.contains("(default 30)  [declared int]"), "\(all)")
    }

    @Test("undeclare, then a free write")
    func undeclare() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "declare", "timeout", "--type", "int"])
        try await Prefs.fail(["--db", db, "write", "timeout", "abc"], status: 1)
        try await Prefs.succeed(["--db", db, "undeclare", "timeout"])
        try await Prefs.succeed(["--db", db, "write", "timeout", "abc"])
        try await Prefs.fail(["--db", db, "undeclare", "timeout"], status: 1)
    }

    @Test("8 processes declaring at once: all succeed, one declaration stands")
    func concurrentDeclaring() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        let results = try await withThrowingTaskGroup(of: Prefs.Result.self) { group in
            for _ in 0..<8 {
                group.addTask { try await Prefs.run(["--db", db, "declare", "timeout", "--type", "int", "--default", "30"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results)")
        await #expect(try DefaultsStore(path: db).declarations() == [DefaultsDeclaration(key: "timeout", type: .int, defaultValue: .integer(30))])
    }

    @Test("two processes declaring different types for one key at once: one declaration stands, and the value fits it")
    func concurrentConflictingDeclarations() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        try await Prefs.succeed(["--db", db, "write", "timeout", "45", "--type", "int"])
        async let asInt = Prefs.run(["--db", db, "declare", "timeout", "--type", "int"])
        async let asText = Prefs.run(["--db", db, "declare", "timeout", "--type", "string"])
        let (intResult, textResult) = try await (asInt, asText)
        #expect(intResult.status == 0, "\(intResult)")
        #expect(textResult.status == 1, "\(textResult)")  // the stored INTEGER does not fit string
        #expect(try DefaultsStore(path: db).declaration(for: "timeout")?.type == .int)
    }

    // The time is printed, not asserted: speed lives in the benchmarks, not in tests that a
    // loaded machine would fail.
    @Test("describe of 10,000 declared keys lists every one",
          .enabled(if: ProcessInfo.processInfo.environment["SQLITEDEFAULTS_SLOW_TESTS"] == "1",
                   "slow tier: runs with SQLITEDEFAULTS_SLOW_TESTS=1 (CI sets it)"))
    func describeTenThousand() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("d.sqlite")
        let store = try DefaultsStore(path: db)
        try await store.transaction { _ in
            for index in 0..<10_000 {
                try store.declare(DefaultsDeclaration(key: "key.\(index)", type: .int, defaultValue: .integer(Int64(index)),
                                                      summary: "Key number \(index)"))
            }
        }
        try store.close()
        let start = ContinuousClock.now
        let json = try await Prefs.succeed(["--db", db, "describe", "--json"])
        let elapsed = ContinuousClock.now - start
        #expect(json.split(separator: "\n").count == 10_002)
        print("prefs describe --json of 10,000 declared keys took \(elapsed)")
    }
}
#endif
