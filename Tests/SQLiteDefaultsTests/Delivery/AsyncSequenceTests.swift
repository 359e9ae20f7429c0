import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

@Suite("AsyncSequences", .offThePool, .requiresSQLiteShell)
struct AsyncSequenceTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func updatesYieldsTheCurrentValueThenEachChangeWithoutDuplicates() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        store[.count] = 1
        let values = DefaultsChangeCollector(store.updates(.count))
        #expect(try await values.next() == 1)
        store[.count] = 2
        store[.count] = 2          // same value: nothing
        store[.count] = 3
        try await sqlite3(temporary.path, "UPDATE defaults SET value = 4 WHERE key = 'count'")
        #expect(try await values.next() == 2)
        #expect(try await values.next() == 3)
        #expect(try await values.next() == 4)
        try await store.remove(.count)
        #expect(try await values.next() == 0)
    }

    @Test func updatesWithoutInitialValue() async throws {
        let store = try DefaultsStore.inMemory()
        store[.name] = "before"
        let values = DefaultsChangeCollector(store.updates(.name, initial: false))
        store[.name] = "after"
        #expect(try await values.next() == "after")
        #expect(values.all == ["after"])
    }

    @Test func changesYieldsEveryKeyInCommitOrderAndBuffersForSlowConsumers() async throws {
        let store = try DefaultsStore(path: directory.database)
        let changes = store.changes()
        for index in 0..<200 { store[DefaultsKey<Int>("k\(index % 3)", default: -1)] = index }
        try await sqlite3(directory.database, "INSERT INTO defaults VALUES ('shell', 1)")
        var received: [AnyDefaultsChange] = []
        for await change in changes {
            received.append(change)
            if received.count == 201 { break }
        }
        #expect(received.prefix(200).map(\.key) == (0..<200).map { "k\($0 % 3)" })
        #expect(received.prefix(200).map(\.newValue) == (0..<200).map { SQLiteValue.integer(Int64($0)) })
        #expect(received.prefix(200).allSatisfy { $0.origin == .local })
        #expect(received.last == AnyDefaultsChange(key: "shell", newValue: .integer(1), origin: .external, writer: DefaultsWriter(kind: .sql)))
    }

    @Test("changes(key) yields that key's typed changes, who made each, and never another key's")
    func changesOfOneKeyAreTypedAndCarryTheOrigin() async throws {
        let store = try DefaultsStore(path: directory.database)
        store[.count] = 1
        var iterator = store.changes(.count).makeAsyncIterator()
        store[.name] = "another key"
        try await store.transaction { tx in
            tx[.count] = 2
            tx[.count] = 3              // one transaction: one change, the final value
        }
        store[.count] = 3               // the value it holds: nothing
        try await sqlite3(directory.database, "UPDATE defaults SET value = 4 WHERE key = 'count'")
        let local = await iterator.next()
        #expect(local?.key == "count" && local?.newValue == 3 && local?.origin == .local && local?.writer?.kind == .library)
        let external = await iterator.next()
        #expect(external == DefaultsChange(key: "count", newValue: 4, origin: .external, writer: DefaultsWriter(kind: .sql)))
        // Removed only once the shell's write has arrived: removed before the monitor saw it, the
        // key would already be back at its default when the monitor compared, and that change
        // would (rightly, for an observer) never be delivered, leaving this await with nothing.
        try await store.remove(.count)
        #expect(await iterator.next()?.newValue == 0, "a removed key arrives as its default")
        // Hashable, as the any-key change is.
        #expect(Set([external, external]).count == 1)
    }

    @Test func endingIterationUnregisters() async throws {
        let store = try DefaultsStore.inMemory()
        let task = Task {
            for await _ in store.updates(.name) {}
        }
        task.cancel()
        _ = await task.value
        // A write after the loop ended reaches nobody and does not block.
        store[.name] = "nobody listening"
        #expect(store[.name] == "nobody listening")
    }
}

@Suite("Observing by prefix", .offThePool, .requiresSQLiteShell)
struct PrefixObservationTests {
    @Test("feature. selects feature.x, never featureless or feature; a shell write is heard too")
    func prefixSelectsByBytes() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let heard = DefaultsChangeCollector(store.changes(prefix: "feature."))
        let called = Collected<String>()
        let token = store.observe(prefix: "feature.") { called.append($0.key) }
        defer { token.cancel() }
        for name in ["featureless", "feature", "feature.a"] { store[DefaultsKey<Int>(name, default: 0)] = 1 }
        try await sqlite3(temporary.path, "INSERT INTO defaults VALUES ('feature.b', 2), ('other', 3)")
        store[DefaultsKey<Int>("feature.end", default: 0)] = 1
        let changes = try await heard.waitFor(count: 3, timeout: .seconds(60))
        #expect(changes.map(\.key) == ["feature.a", "feature.b", "feature.end"])
        #expect(changes[1].origin == .external)
        #expect(await called.waitAsync { $0.contains("feature.end") })
        #expect(called.all == ["feature.a", "feature.b", "feature.end"])
    }
}

@Suite("Commit order across connections", .offThePool, .requiresSQLiteShell)
struct CommitOrderTests {
    /// The monitor looks once an hour here, so only the store's own commit can bring in the
    /// shell's earlier one: before the fix, `feature.b` arrived after `feature.end` (or an hour later).
    @Test("a commit by another connection that the monitor has not seen yet is announced before this store's later commit")
    func otherConnectionsEarlierCommitComesFirst() async throws {
        let directory = try TemporaryDirectory()
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .polling(interval: .seconds(3600))
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        let heard = DefaultsChangeCollector(store.changes())
        let called = Collected<String>()
        let token = store.observe { called.append("\($0.key)=\($0.origin)") }
        defer { token.cancel() }
        store[DefaultsKey<Int>("first", default: 0)] = 1
        try await sqlite3(directory.database, "INSERT INTO defaults VALUES ('shell', 2), ('both', 2)")
        // One transaction: `both` was written by the shell and then by this store; observers
        // hear it once, with this store's value, after the shell's `shell`.
        try await store.transaction { tx in
            tx[DefaultsKey<Int>("both", default: 0)] = 3
            tx[DefaultsKey<Int>("last", default: 0)] = 4
        }
        let changes = try await heard.waitFor(count: 4, timeout: .seconds(60))
        #expect(changes.map(\.key) == ["first", "shell", "both", "last"])
        #expect(changes.map(\.origin) == [.local, .external, .local, .local])
        #expect(changes[2].newValue == .integer(3))
        #expect(await called.waitAsync { $0.count >= 4 })
        #expect(called.all == ["first=local", "shell=external", "both=local", "last=local"])
        // A single autocommit write after another shell write: the same order.
        try await sqlite3(directory.database, "UPDATE defaults SET value = 5 WHERE key = 'shell'")
        store[DefaultsKey<Int>("first", default: 0)] = 6
        let more = try await heard.waitFor(count: 6, timeout: .seconds(60))
        #expect(more.dropFirst(4).map(\.key) == ["shell", "first"])
        #expect(more.dropFirst(4).map(\.origin) == [.external, .local])
    }

    /// An observer of every key fills the cache with the rows as they are when it registers. A
    /// commit by another connection that the monitor had not applied yet was then in the cache
    /// already, so the key's earlier observer never heard it (seen in CI: a shell-like writer's
    /// change, then `DefaultsChangeCollector(store)`, and the key's observer heard nothing).
    @Test("an observer of every key registered before the monitor looked does not hide another connection's commit from the key's observers")
    func aNewObserverOfEveryKeyDoesNotHideAPendingChange() async throws {
        let directory = try TemporaryDirectory()
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .polling(interval: .seconds(3600))
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        store[.name] = "before"
        let (token, seen) = collect(store, .name)
        try await sqlite3(directory.database, "UPDATE defaults SET value = 'from the shell' WHERE key = 'name'")
        let everyKey = DefaultsChangeCollector(store)
        // The barrier: this store's own commit brings in the shell's earlier one, in order.
        store[DefaultsKey<Int>("marker", default: 0)] = 1
        _ = try await everyKey.waitFor(key: "marker", value: .integer(1), timeout: .seconds(60))
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all.map(\.value) == ["from the shell"])
        #expect(seen.all.map(\.origin) == [.external])
        withExtendedLifetime(token) {}
    }
}
