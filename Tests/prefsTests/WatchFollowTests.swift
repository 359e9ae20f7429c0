#if Prefs
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `prefs watch` never keeps running deaf: it follows a database file replaced at its path,
/// and a watcher that was stopped hears what committed meanwhile.
@Suite("watch follows its file", .requiresSQLiteShell)
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

    @Test("a watcher stopped with SIGSTOP prints, once resumed, the newest value of what committed meanwhile")
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
        #expect(await watcher.output.wait(timeout: .seconds(20)) { $0.hasSuffix(" n = 100 (integer)") } != nil, "\(watcher.output.all)")
        // What was printed is in commit order: never an older value after a newer one.
        let values = watcher.output.all.compactMap { $0.split(separator: " ").dropFirst(4).first.flatMap { Int($0) } }
        #expect(values == values.sorted(), "\(values)")
        _ = try await watcher.stop()
    }
}
#endif
