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

/// `prefs watch` runs as a child process with `--ready`, which prints `ready` on standard
/// error once its subscription is in place; each test waits for that line before writing,
/// then waits (up to 10 s, returning as soon as it arrives) for the output line it expects.
@Suite("prefs watch", .offThePool, .requiresSQLiteShell)
struct WatchTests {
    @Test("watch --json prints a write made by another prefs process, then exits 0 on SIGINT")
    func seesOtherProcess() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let watcher = try await Watcher.start(["--db", database, "watch", "--json"])

        try await Prefs.succeed(["--db", database, "write", "answer", "42", "--type", "int"])
        let line = try #require(await watcher.output.wait { $0.contains(#""answer""#) }, "no line for the write; got \(watcher.output.all)")
        let object = try jsonObject(line)
        #expect(object["key"] as? String == "answer")
        #expect((object["value"] as? NSNumber)?.int64Value == 42)
        #expect(object["origin"] as? String == "external")
        let time = try #require(object["time"] as? String)
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
        #expect(Set(object.keys) == ["key", "value", "origin", "time", "writer", "seq", "actor"], "prefs names its actor: the login name")
        let writer = try #require(object["writer"] as? [String: Any])
        #expect(writer["kind"] as? String == "library")
        #expect(writer["program"] as? String == "prefs")
        #expect((writer["pid"] as? NSNumber).map { $0.int32Value > 0 } == true)

        let outcome = try await watcher.stop(with: SIGINT)
        #expect(outcome.succeeded, "status \(outcome.status), stderr: \(outcome.standardError)")
        #expect(outcome.standardError == "ready\n")
    }

    @Test("watch --json prints a change made with plain SQL in the sqlite3 shell, then exits 0 on SIGTERM")
    func seesSQLiteShell() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "existing", "1", "--type", "int"])
        let watcher = try await Watcher.start(["--db", database, "watch", "--json"])

        try await SQLite3.run(database, "INSERT INTO defaults(key, value) VALUES ('from.sql', 2.5);")
        let insert = try #require(await watcher.output.wait { $0.contains(#""from.sql""#) }, "no line for the INSERT; got \(watcher.output.all)")
        #expect(insert.hasPrefix(#"{"key":"from.sql","value":2.5,"origin":"external","time":""#), "\(insert)")
        #expect(insert.hasSuffix(#","writer":{"kind":"sql"}}"#), "\(insert)")

        try await SQLite3.run(database, "UPDATE defaults SET value = x'00FF' WHERE key = 'existing';")
        let update = try #require(await watcher.output.wait { $0.contains(#""existing""#) }, "no line for the UPDATE; got \(watcher.output.all)")
        #expect(update.hasPrefix(#"{"key":"existing","value":{"$data": "AP8="},"origin":"external""#), "\(update)")

        try await SQLite3.run(database, "DELETE FROM defaults WHERE key = 'from.sql';")
        let delete = try #require(await watcher.output.wait { $0.contains(#""from.sql","value":null"#) },
                                  "no line for the DELETE; got \(watcher.output.all)")
        #expect(try jsonObject(delete)["value"] is NSNull)

        let outcome = try await watcher.stop(with: SIGTERM)
        #expect(outcome.succeeded, "status \(outcome.status), stderr: \(outcome.standardError)")
    }

    @Test("watch KEY prints only that key's changes, in human-readable lines")
    func filtersKeys() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let watcher = try await Watcher.start(["--db", database, "watch", "theme"])

        // Changes arrive in commit order, so an unfiltered "other" line would come first.
        try await Prefs.succeed(["--db", database, "write", "other", "ignored"])
        try await Prefs.succeed(["--db", database, "write", "theme", "dark"])
        let line = try #require(await watcher.output.wait { $0.contains("theme") }, "no line for theme; got \(watcher.output.all)")
        #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z external theme = dark \(text\)( for .+)?/) != nil, "\(line)")

        try await Prefs.succeed(["--db", database, "delete", "theme"])
        let removed = try #require(await watcher.output.wait { $0.contains(" theme removed") }, "no removal line; got \(watcher.output.all)")
        #expect(removed.contains(" external theme removed"))

        let outcome = try await watcher.stop()
        #expect(outcome.succeeded)
        #expect(!watcher.output.all.contains { $0.contains("other") }, "\(watcher.output.all)")
        #expect(watcher.output.all.count == 2, "\(watcher.output.all)")
    }
}
#endif
