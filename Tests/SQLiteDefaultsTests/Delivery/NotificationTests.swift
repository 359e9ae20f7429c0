import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

struct Seen: Sendable, Equatable {
    let value: String
    let origin: DefaultsChangeOrigin
}

/// Observes `key` and collects each change.
func collect(_ store: DefaultsStore, _ key: DefaultsKey<String>) -> (DefaultsObservation, Collected<Seen>) {
    let seen = Collected<Seen>()
    let token = store.observe(key) { seen.append(Seen(value: $0.newValue, origin: $0.origin)) }
    return (token, seen)
}

@Suite("Per-key notification from every channel", .offThePool, .requiresSQLiteShell)
struct NotificationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func ownWriteIsLocalAndDeliveredAfterCommit() async throws {
        let store = try DefaultsStore(path: directory.database)
        let committed = Collected<String>()
        let token = store.observe(.name) { change in
            // The change is committed: a second connection already sees it. (The observer runs
            // on the store's delivery thread, not the pool: the shell is waited for there.)
            committed.append((try? sqlite3(store.path!, "SELECT value FROM defaults WHERE key = 'name'")) ?? "?")
            #expect(change.origin == .local)
            #expect(change.key == "name")
        }
        store[.name] = "Ada"
        #expect(await committed.waitAsync(count: 1))
        #expect(committed.all == ["Ada"])
        token.cancel()
    }

    @Test func aSecondStoreOnTheSameFileIsExternal() async throws {
        let first = try DefaultsStore(path: directory.database)
        let second = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(first, .name)
        second[.name] = "from second"
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [Seen(value: "from second", origin: .external)])
        #expect(first[.name] == "from second")  // the cache was invalidated
        _ = token
    }

    @Test func anotherProcess() async throws {
        let store = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        try await runHelper("set-string", directory.database, "name", "from process")
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [Seen(value: "from process", origin: .external)])
        #expect(store[.name] == "from process")
        try await runHelper("remove", directory.database, "name")
        #expect(await seen.waitAsync(count: 2))
        #expect(seen.all.last == Seen(value: "Guest", origin: .external))
        _ = token
    }

    @Test func sqliteShellInsertUpdateAndDelete() async throws {
        let store = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        let counts = Collected<Int>()
        let countToken = store.observe(.count) { counts.append($0.newValue) }
        try await sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES ('name', 'inserted')")
        #expect(await seen.waitAsync(count: 1))
        try await sqlite3(directory.database, "UPDATE defaults SET value = 'updated' WHERE key = 'name'")
        #expect(await seen.waitAsync(count: 2))
        try await sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'name'")
        #expect(await seen.waitAsync(count: 3))
        #expect(seen.all == [
            Seen(value: "inserted", origin: .external),
            Seen(value: "updated", origin: .external),
            Seen(value: "Guest", origin: .external),
        ])
        // A bare DELETE (no WHERE) and a multi-row statement report every key.
        try await sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES ('name', 'n'), ('count', 5)")
        #expect(await seen.waitAsync(count: 4))
        #expect(await counts.waitAsync(count: 1))
        try await sqlite3(directory.database, "DELETE FROM defaults")
        #expect(await seen.waitAsync(count: 5))
        #expect(await counts.waitAsync(count: 2))
        #expect(counts.all == [5, 0])
        #expect(store[.count] == 0)
        _ = (token, countToken)
    }

    @Test func anObserverOfAIsNeverCalledForB() async throws {
        let store = try DefaultsStore(path: directory.database)
        let other = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        store[.count] = 1
        other[.count] = 2
        try await sqlite3(directory.database, "UPDATE defaults SET value = 3 WHERE key = 'count'")
        store[.name] = "last"  // a marker: once this arrives, everything before it has been delivered
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [Seen(value: "last", origin: .local)])
        _ = token
    }

    @Test func aRolledBackTransactionNotifiesNobody() async throws {
        let store = try DefaultsStore(path: directory.database)
        let watcher = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        let (externalToken, external) = collect(watcher, .name)
        #expect(throws: Refusal.self) {
            try store.transaction { tx in
                tx[.name] = "never"
                throw Refusal(reason: "roll back")
            }
        }
        store[.name] = "marker"
        #expect(await seen.waitAsync(count: 1))
        #expect(await external.waitAsync(count: 1))
        #expect(seen.all == [Seen(value: "marker", origin: .local)])
        #expect(external.all == [Seen(value: "marker", origin: .external)])
        _ = (token, externalToken)
    }

    @Test func severalWritesInOneTransactionAreOneNotification() async throws {
        let store = try DefaultsStore(path: directory.database)
        let watcher = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        let (externalToken, external) = collect(watcher, .name)
        try await store.transaction { tx in
            tx[.name] = "one"
            tx[.name] = "two"
            tx[.name] = "three"
        }
        #expect(await seen.waitAsync(count: 1))
        #expect(await external.waitAsync(count: 1))
        store[.name] = "marker"
        #expect(await seen.waitAsync(count: 2))
        #expect(await external.waitAsync(count: 2))
        #expect(seen.all.map(\.value) == ["three", "marker"])
        #expect(external.all.map(\.value) == ["three", "marker"])
        _ = (token, externalToken)
    }

    @Test func writingTheValueAlreadyThereNotifiesNobody() async throws {
        let store = try DefaultsStore(path: directory.database)
        let watcher = try DefaultsStore(path: directory.database)
        store[.name] = "same"
        let (token, seen) = collect(store, .name)
        let (externalToken, external) = collect(watcher, .name)
        store[.name] = "same"
        try await store.set("same", for: .name)
        try await store.transaction { tx in tx[.name] = "other"; tx[.name] = "same" }
        try await sqlite3(directory.database, "UPDATE defaults SET value = 'same' WHERE key = 'name'")
        store[.name] = "marker"
        #expect(await seen.waitAsync(count: 1))
        #expect(await external.waitAsync(count: 1))
        #expect(seen.all.map(\.value) == ["marker"])
        #expect(external.all.map(\.value) == ["marker"])
        _ = (token, externalToken)
    }

    @Test func twoThousandObservedKeysOneWriteOneCall() async throws {
        let store = try DefaultsStore(path: directory.database)
        let calls = Collected<String>()
        var tokens: [DefaultsObservation] = []
        for index in 0..<2_000 {
            tokens.append(store.observe(DefaultsKey<Int>("key.\(index)", default: 0)) { calls.append($0.key) })
        }
        store[DefaultsKey<Int>("key.1234", default: 0)] = 1
        try await sqlite3(directory.database, "UPDATE defaults SET value = 2 WHERE key = 'key.1234'")
        #expect(await calls.waitAsync(count: 2))
        store[DefaultsKey<Int>("key.7", default: 0)] = 1
        #expect(await calls.waitAsync(count: 3))
        #expect(calls.all == ["key.1234", "key.1234", "key.7"])
        tokens.removeAll()
    }

    @Test func cancellingDuringDeliveryIsSafe() throws {
        let store = try DefaultsStore.inMemory()
        let calls = Collected<String>()
        let victim = Collected<Int>()
        let victimToken = store.observe(.name) { _ in victim.append(1) }
        nonisolated(unsafe) var selfToken: DefaultsObservation?
        let holder = TokenBox()
        selfToken = store.observe(.name) { change in
            calls.append(change.newValue)
            holder.token?.cancel()   // cancels itself from inside its own call
            victimToken.cancel()     // and another observer
        }
        holder.token = selfToken
        store[.name] = "a"
        store[.name] = "b"
        #expect(calls.all == ["a"])
        #expect(victim.count <= 1)
        _ = selfToken
    }

    @Test func callbacksMayReadAndWriteTheStore() async throws {
        let store = try DefaultsStore(path: directory.database)
        let seen = Collected<Int>()
        let token = store.observe(.count) { change in
            seen.append(change.newValue)
            if change.newValue < 5 { store[.count] = store[.count] + 1 }  // re-entrant write: no deadlock
        }
        store[.count] = 1
        #expect(await seen.waitAsync(count: 5))
        #expect(seen.all == [1, 2, 3, 4, 5])
        _ = token
    }

    @Test func aChangeLogRowForAKeyThatNoLongerExistsDeliversTheDefault() async throws {
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "x"
        let (token, seen) = collect(store, .name)
        // Another writer logs a change of a key whose row is gone.
        try await sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'name'; INSERT INTO defaults_changes(key) VALUES ('name');")
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [Seen(value: "Guest", origin: .external)])
        _ = token
    }

    @Test func tokenDeinitUnregisters() throws {
        let store = try DefaultsStore.inMemory()
        let seen = Collected<String>()
        do {
            let token = store.observe(.name) { seen.append($0.newValue) }
            store[.name] = "while alive"
            _ = token
        }
        store[.name] = "after deinit"
        #expect(seen.all == ["while alive"])
    }

    @Test func observeAllSeesEveryKeyInCommitOrder() async throws {
        let store = try DefaultsStore(path: directory.database)
        let seen = Collected<AnyDefaultsChange>()
        let token = store.observe { seen.append($0) }
        store[.name] = "n"
        store[.count] = 1
        try await sqlite3(directory.database, "INSERT INTO defaults VALUES ('shell', 'yes')")
        #expect(await seen.waitAsync(count: 3))
        #expect(seen.all.map(\.key) == ["name", "count", "shell"])
        #expect(seen.all.map(\.origin) == [.local, .local, .external])
        #expect(seen.all.last?.newValue == .text("yes"))
        _ = token
    }
}

final class TokenBox: @unchecked Sendable {
    // Test-only: written once before the first delivery, read only by deliveries after it.
    var token: DefaultsObservation?
}
