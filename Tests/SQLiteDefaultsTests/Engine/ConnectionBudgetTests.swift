import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Many stores, few descriptors: each open store holds three (database, `-wal`, `-shm`), so a
/// process keeps at most a budget of connections open and closes the least recently used idle
/// ones, reopening them when SQL is needed. Observation goes on while a store is suspended.
@Suite("Connection budget", .offThePool, .requiresSQLiteShell)
struct ConnectionBudgetTests {
    @Test("300 observed stores open under a 256-descriptor limit; a suspended one hears the shell, every one reads and writes")
    func manyStoresUnderALowDescriptorLimit() async throws {
        let directory = try TemporaryDirectory()
        let child = try RunningHelper(["budget", directory.path, "300"])
        let ready = await child.line(timeout: .seconds(300)) { $0 == "ready" }
        try #require(ready != nil, "the stores did not all open: \(child.lines.all.suffix(3)) \(child.errors)")
        let descriptors = Int(await child.value(after: "fds ") ?? "") ?? -1
        #expect(descriptors > 0 && descriptors < 256, "descriptors in use: \(descriptors)")
        // The first store's connection was suspended long ago; the monitor still watches its file.
        try await sqlite3(directory.path + "/s0.sqlite", "INSERT INTO defaults(key, value) VALUES ('k', 'from the shell')")
        #expect(await child.value(after: "heard ", timeout: .seconds(120)) == "from the shell", "\(child.lines.all.suffix(3)) \(child.errors)")
        #expect(await child.value(after: "wrote ", timeout: .seconds(300)) == "300", "\(child.lines.all.suffix(3)) \(child.errors)")
        #expect(await child.exitStatus() == 0)
    }

    /// The stamp a suspended store keeps (its files as they were) stands for "nothing new": a
    /// commit another process made after the store's last look, whose file event the monitor
    /// had not handled yet, must not be taken into it. Once it was: the budget suspended the
    /// store, the stamp held the commit, and every later look saw the same files and skipped
    /// it until some other write came (the browser suite's CI failure of 2026-12-02).
    @Test("A commit that lands just before the budget suspends a store is still heard")
    func aCommitJustBeforeTheSuspensionIsHeard() async throws {
        let directory = try TemporaryDirectory()
        let child = try RunningHelper(["budget-race", directory.path])
        try #require(await child.line(timeout: .seconds(300)) { $0 == "ready" } != nil, "\(child.errors)")
        try await sqlite3(directory.path + "/s0.sqlite", "INSERT INTO defaults(key, value) VALUES ('k', 'from the shell')")
        try Data().write(to: URL(fileURLWithPath: directory.path + "/go"))
        #expect(await child.line(timeout: .seconds(300)) { $0 == "opened" } != nil, "\(child.lines.all) \(child.errors)")
        #expect(await child.value(after: "heard ", timeout: .seconds(300)) == "from the shell", "\(child.lines.all) \(child.errors)")
        #expect(await child.exitStatus(timeout: .seconds(60)) == 0)
    }
}
