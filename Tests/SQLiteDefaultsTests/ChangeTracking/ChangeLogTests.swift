import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("The change log stays bounded and gaps are recovered", .offThePool, .requiresSQLiteShell)
struct ChangeLogTests {
    @Test func theLogIsPrunedAsWritesGoOn() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.transaction { _ in }  // schema ready
        for index in 0..<12_500 { try await store.set(index, for: DefaultsKey<Int>("k\(index % 10)", default: 0)) }
        let rows = Int(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes")) ?? -1
        #expect(rows > 0)
        #expect(rows <= 11_000)
        // Pruning never hands a number out twice: each of the 12,500 changes got its own.
        #expect(try await sqlite3(directory.database, "SELECT max(seq) FROM defaults_changes") == "12500")
        #expect(try await sqlite3(directory.database, "SELECT key FROM defaults_changes ORDER BY seq DESC LIMIT 1") == "k9")
    }

    @Test func aStoreThatMissedPrunedEntriesRereadsWhatItObserves() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "start"
        let (token, seen) = collect(store, .name)
        // Another writer leaves a gap in the log, as if entries this store never read were pruned.
        try await sqlite3(directory.database, """
            INSERT INTO defaults_changes(seq, key) SELECT max(seq) + 500, 'unrelated' FROM defaults_changes;
            UPDATE defaults SET value = 'after gap' WHERE key = 'name';
            """)
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [Seen(value: "after gap", origin: .external)])
        #expect(store[.name] == "after gap")
        _ = token
    }

    @Test func sequencesEndWhenTheStoreGoesAway() async throws {
        let directory = try TemporaryDirectory()
        var store: DefaultsStore? = try DefaultsStore(path: directory.database)
        let updates = store!.updates(.name)
        let changes = store!.changes()
        store = nil
        var received: [String] = []
        for await name in updates { received.append(name) }
        #expect(received == ["Guest"])
        for await _ in changes { Issue.record("no change was made") }
    }
}
