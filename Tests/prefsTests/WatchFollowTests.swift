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

/// `prefs watch` never keeps running deaf: it follows a database file replaced at its path,
/// and a watcher that was stopped hears what committed meanwhile.
@Suite("watch follows its file", .offThePool, .requiresSQLiteShell)
struct WatchFollowTests {
    @Test("a database moved over the watched one: one stderr line, the differing keys, then later changes")
    func followsAReplacedFile() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        let other = directory.path("other.sqlite")
        try await Prefs.succeed(["--db", database, "write", "same", "1"])
        try await Prefs.succeed(["--db", database, "write", "a", "old"])
        try await Prefs.succeed(["--db", database, "write", "gone", "x"])
        try await Prefs.succeed(["--db", other, "write", "same", "1"])
        try await Prefs.succeed(["--db", other, "write", "a", "new"])
        try await Prefs.succeed(["--db", other, "write", "b", "added"])

        let watcher = try await Watcher.start(["--db", database, "watch"])
        #expect(rename(other, database) == 0)
        let notice = await watcher.errors.wait(timeout: .seconds(20)) { $0.hasPrefix("prefs: ") }
        #expect(notice?.contains("replaced") == true, "\(watcher.errors.all)")
        #expect(await watcher.output.wait { $0.hasSuffix(" a = new (text)") } != nil, "\(watcher.output.all)")
        #expect(await watcher.output.wait { $0.hasSuffix(" b = added (text)") } != nil, "\(watcher.output.all)")
        #expect(await watcher.output.wait { $0.hasSuffix(" gone removed") } != nil, "\(watcher.output.all)")

        try await Prefs.succeed(["--db", database, "write", "later", "heard"])
        #expect(await watcher.output.wait { $0.contains(" later = heard (text)") } != nil, "\(watcher.output.all)")
        let outcome = try await watcher.stop(with: SIGTERM)
        #expect(outcome.succeeded, "status \(outcome.status)")
        #expect(!watcher.output.all.contains { $0.contains(" same ") }, "an unchanged key was printed: \(watcher.output.all)")
        #expect(watcher.errors.all.filter { $0.hasPrefix("prefs: ") }.count == 1, "\(watcher.errors.all)")
    }

    @Test("a replacement that cannot be opened stops the watcher with status 1 and one line")
    func stopsWhenTheReplacementCannotBeOpened() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "a", "1"])
        let watcher = try await Watcher.start(["--db", database, "watch"])
        let junk = directory.path("junk")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: junk))
        #expect(rename(junk, database) == 0)
        let outcome = try #require(await watcher.child.wait(timeout: .seconds(20)), "the watcher kept running deaf")
        #expect(!outcome.killedBySignal && outcome.status == 1, "status \(outcome.status)")
        let lines = watcher.errors.all.filter { $0 != "ready" }
        #expect(lines.count == 1 && lines.first?.hasPrefix("prefs: ") == true, "\(lines)")
    }

    @Test("a watcher stopped with SIGSTOP prints, once resumed, every change that committed meanwhile, in order")
    func resumedWatcherHearsWhatCommitted() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "n", "0", "--type", "int"])
        let watcher = try await Watcher.start(["--db", database, "watch", "n"])
        watcher.child.send(SIGSTOP)
        // 100 commits, each its own transaction.
        let updates = (1...100).map { "UPDATE defaults SET value = \($0) WHERE key = 'n';" }.joined(separator: " ")
        try await SQLite3.run(database, updates)
        watcher.child.send(SIGCONT)
        #expect(await watcher.output.wait(timeout: .seconds(60)) { $0.hasSuffix(" n = 100 (integer)") } != nil, "\(watcher.output.all)")
        // One line per change, none merged, in commit order.
        let values = watcher.output.all.compactMap { $0.split(separator: " ").dropFirst(4).first.flatMap { Int($0) } }
        #expect(values == Array(1...100), "\(values)")
        _ = try await watcher.stop()
    }

    @Test("--since prints every kept change after SEQ, then goes on live; --since the newest prints nothing first")
    func sinceReplaysThenFollows() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        for value in 1...5 { try await Prefs.succeed(["--db", database, "write", "n", "\(value)", "--type", "int"]) }
        let history = try await Prefs.succeed(["--db", database, "history", "n", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [[String: Any]])
        let sequences = entries.compactMap { ($0["seq"] as? NSNumber)?.int64Value }.sorted()
        let watcher = try await Watcher.start(["--db", database, "watch", "--json", "--since", "\(sequences[1])"])
        try await Prefs.succeed(["--db", database, "write", "n", "6", "--type", "int"])
        #expect(await watcher.output.wait(timeout: .seconds(60)) { $0.contains(#""value":6"#) } != nil, "\(watcher.output.all)")
        let lines = watcher.output.all.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.compactMap { ($0?["value"] as? NSNumber)?.intValue } == [3, 4, 5, 6])
        let seqs = lines.compactMap { ($0?["seq"] as? NSNumber)?.int64Value }
        #expect(Array(seqs.prefix(3)) == Array(sequences[2...]))
        _ = try await watcher.stop()

        let newest = try #require(seqs.last)
        let live = try await Watcher.start(["--db", database, "watch", "--since", "\(newest)"])
        try await Prefs.succeed(["--db", database, "write", "marker", "end"])
        let line = await live.output.wait(timeout: .seconds(60)) { $0.contains("marker") }
        #expect(line != nil && live.output.all.count == 1, "\(live.output.all)")
        _ = try await live.stop()
    }

    @Test("--prefix selects keys by their first bytes, beside the keys named")
    func prefixSelects() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        let watcher = try await Watcher.start(["--db", database, "watch", "other", "--prefix", "feature."])
        for key in ["featureless", "feature", "feature.a", "unrelated", "other", "feature.end"] {
            try await Prefs.succeed(["--db", database, "write", key, "1"])
        }
        #expect(await watcher.output.wait(timeout: .seconds(60)) { $0.contains("feature.end") } != nil)
        let keys = watcher.output.all.map { $0.split(separator: " ")[2] }
        #expect(keys == ["feature.a", "other", "feature.end"], "\(watcher.output.all)")
        _ = try await watcher.stop()
    }

    @Test("--since older than the history keeps, or newer than its newest change: exit 1, one line")
    func sinceOutOfRange() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "n", "0", "--type", "int"])
        let store = try DefaultsStore(path: database)
        try await store.setHistoryRetention(100)
        for value in 1...1_200 { store[DefaultsKey<Int>("n", default: 0)] = value }
        let newest = try await store.newestSequence()
        try store.close()
        for (since, words) in [("1", "compacted"), ("\(newest + 10)", "no change")] {
            let result = try await Prefs.run(["--db", database, "watch", "--since", since])
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(words), "\(result.stderr)")
        }
    }
}
#endif
