import PrefsFormats
import Testing
import TestScheduling

/// Which command lines `prefs` reads without ArgumentParser (prefsTests' QuickReadTests check
/// that each gives the outcome ArgumentParser's path gives).
@Suite("QuickReadArguments", .offThePool)
struct QuickReadArgumentsTests {
    @Test("it takes read KEY with --json and one of --db/--name, in any order", arguments: [
        ["read", "timeout"],
        ["--db", "/tmp/x.sqlite", "read", "timeout"],
        ["read", "timeout", "--db", "/tmp/x.sqlite"],
        ["read", "--db", "/tmp/x.sqlite", "timeout", "--json"],
        ["--name", "app", "read", "--json", "timeout"],
        ["read", "\\x{FF}key"],
    ])
    func takes(_ arguments: [String]) throws {
        let read = try #require(QuickReadArguments(arguments))
        #expect(read.key == arguments.last { !$0.hasPrefix("-") && $0 != "read" && $0 != "/tmp/x.sqlite" && $0 != "app" })
        #expect(read.json == arguments.contains("--json"))
        #expect(read.db == (arguments.contains("--db") ? "/tmp/x.sqlite" : nil))
        #expect(read.name == (arguments.contains("--name") ? "app" : nil))
    }

    @Test("anything else is left to ArgumentParser", arguments: [
        [],
        ["read"],
        ["read", "a", "b"],
        ["write", "a", "1"],
        ["--db=/tmp/x.sqlite", "read", "timeout"],
        ["--db", "/tmp/x.sqlite", "--name", "app", "read", "timeout"],
        ["--db", "/tmp/a", "--db", "/tmp/b", "read", "timeout"],
        ["--db", "", "read", "timeout"],
        ["--db", "-x", "read", "timeout"],
        ["--db"],
        ["read", "--", "timeout"],
        ["read", "-k"],
        ["read", ""],
        ["read", "timeout", "--json", "--json"],
        ["--json", "read", "timeout"],
        ["read", "help"],
        ["read", "timeout", "--help"],
        ["read", "timeout", "-h"],
        ["--version"],
    ])
    func leaves(_ arguments: [String]) {
        #expect(QuickReadArguments(arguments) == nil)
    }
}
