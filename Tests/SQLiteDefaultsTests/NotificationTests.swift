import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing

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

@Suite("Per-key notification from every channel", .requiresSQLiteShell)
struct NotificationTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func ownWriteIsLocalAndDeliveredAfterCommit() throws {
        let store = try DefaultsStore(path: directory.database)
        let committed = Collected<String>()
        let token = store.observe(.name) { change in
            // The change is committed: a second connection already sees it.
            committed.append((try? sqlite3(store.path!, "SELECT value FROM defaults WHERE key = 'name'")) ?? "?")
            #expect(change.origin == .local)
            #expect(change.key == "name")
        }
        store[.name] = "Ada"
        #expect(committed.wait(count: 1))
        #expect(committed.all == ["Ada"])
        token.cancel()
    }

    @Test func aSecondStoreOnTheSameFileIsExternal() throws {
        let first = try DefaultsStore(path: directory.database)
        let second = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(first, .name)
        second[.name] = "from second"
        #expect(seen.wait(count: 1))
        #expect(seen.all == [Seen(value: "from second", origin: .external)])
        #expect(first[.name] == "from second")  // the cache was invalidated
        _ = token
    }

    @Test func anotherProcess() throws {
        let store = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        try runHelper("set-string", directory.database, "name", "from process")
        #expect(seen.wait(count: 1))
        #expect(seen.all == [Seen(value: "from process", origin: .external)])
        #expect(store[.name] == "from process")
        try runHelper("remove", directory.database, "name")
        #expect(seen.wait(count: 2))
        #expect(seen.all.last == Seen(value: "Guest", origin: .external))
        _ = token
    }

    @Test func sqliteShellInsertUpdateAndDelete() throws {
        let store = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        let counts = Collected<Int>()
        let countToken = store.observe(.count) { counts.append($0.newValue) }
        try sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES ('name', 'inserted')")
        #expect(seen.wait(count: 1))
        try sqlite3(directory.database, "UPDATE defaults SET value = 'updated' WHERE key = 'name'")
        #expect(seen.wait(count: 2))
        try sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'name'")
        #expect(seen.wait(count: 3))
        #expect(seen.all == [
            Seen(value: "inserted", origin: .external),
            Seen(value: "updated", origin: .external),
            Seen(value: "Guest", origin: .external),
        ])
        // A bare DELETE (no WHERE) and a multi-row statement report every key.
        try sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES ('name', 'n'), ('count', 5)")
        #expect(seen.wait(count: 4))
        #expect(counts.wait(count: 1))
        try sqlite3(directory.database, "DELETE FROM defaults")
        #expect(seen.wait(count: 5))
        #expect(counts.wait(count: 2))
        #expect(counts.all == [5, 0])
        #expect(store[.count] == 0)
        _ = (token, countToken)
    }

    @Test func anObserverOfAIsNeverCalledForB() throws {
        let store = try DefaultsStore(path: directory.database)
        let other = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        store[.count] = 1
        other[.count] = 2
        try sqlite3(directory.database, "UPDATE defaults SET value = 3 WHERE key = 'count'")
        store[.name] = "last"  // a marker: once this arrives, everything before it has been delivered
        #expect(seen.wait(count: 1))
        #expect(seen.all == [Seen(value: "last", origin: .local)])
        _ = token
    }

    @Test func aRolledBackTransactionNotifiesNobody() throws {
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
        #expect(seen.wait(count: 1))
        #expect(external.wait(count: 1))
        #expect(seen.all == [Seen(value: "marker", origin: .local)])
        #expect(external.all == [Seen(value: "marker", origin: .external)])
        _ = (token, externalToken)
    }

    @Test func severalWritesInOneTransactionAreOneNotification() throws {
        let store = try DefaultsStore(path: directory.database)
        let watcher = try DefaultsStore(path: directory.database)
        let (token, seen) = collect(store, .name)
        let (externalToken, external) = collect(watcher, .name)
        try store.transaction { tx in
            tx[.name] = "one"
            tx[.name] = "two"
            tx[.name] = "three"
        }
        #expect(seen.wait(count: 1))
        #expect(external.wait(count: 1))
        store[.name] = "marker"
        #expect(seen.wait(count: 2))
        #expect(external.wait(count: 2))
        #expect(seen.all.map(\.value) == ["three", "marker"])
        #expect(external.all.map(\.value) == ["three", "marker"])
        _ = (token, externalToken)
    }

    @Test func writingTheValueAlreadyThereNotifiesNobody() throws {
        let store = try DefaultsStore(path: directory.database)
        let watcher = try DefaultsStore(path: directory.database)
        store[.name] = "same"
        let (token, seen) = collect(store, .name)
        let (externalToken, external) = collect(watcher, .name)
        store[.name] = "same"
        try store.set("same", for: .name)
        try store.transaction { tx in tx[.name] = "other"; tx[.name] = "same" }
        try sqlite3(directory.database, "UPDATE defaults SET value = 'same' WHERE key = 'name'")
        store[.name] = "marker"
        #expect(seen.wait(count: 1))
        #expect(external.wait(count: 1))
        #expect(seen.all.map(\.value) == ["marker"])
        #expect(external.all.map(\.value) == ["marker"])
        _ = (token, externalToken)
    }

    @Test func twoThousandObservedKeysOneWriteOneCall() throws {
        let store = try DefaultsStore(path: directory.database)
        let calls = Collected<String>()
        var tokens: [DefaultsObservation] = []
        for index in 0..<2_000 {
            tokens.append(store.observe(DefaultsKey<Int>("key.\(index)", default: 0)) { calls.append($0.key) })
        }
        store[DefaultsKey<Int>("key.1234", default: 0)] = 1
        try sqlite3(directory.database, "UPDATE defaults SET value = 2 WHERE key = 'key.1234'")
        #expect(calls.wait(count: 2))
        store[DefaultsKey<Int>("key.7", default: 0)] = 1
        #expect(calls.wait(count: 3))
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

    @Test func callbacksMayReadAndWriteTheStore() throws {
        let store = try DefaultsStore(path: directory.database)
        let seen = Collected<Int>()
        let token = store.observe(.count) { change in
            seen.append(change.newValue)
            if change.newValue < 5 { store[.count] = store[.count] + 1 }  // re-entrant write: no deadlock
        }
        store[.count] = 1
        #expect(seen.wait(count: 5))
        #expect(seen.all == [1, 2, 3, 4, 5])
        _ = token
    }

    @Test func aChangeLogRowForAKeyThatNoLongerExistsDeliversTheDefault() throws {
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "x"
        let (token, seen) = collect(store, .name)
        // Another writer logs a change of a key whose row is gone.
        try sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'name'; INSERT INTO defaults_changes(key) VALUES ('name');")
        #expect(seen.wait(count: 1))
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

    @Test func observeAllSeesEveryKeyInCommitOrder() throws {
        let store = try DefaultsStore(path: directory.database)
        let seen = Collected<AnyDefaultsChange>()
        let token = store.observe { seen.append($0) }
        store[.name] = "n"
        store[.count] = 1
        try sqlite3(directory.database, "INSERT INTO defaults VALUES ('shell', 'yes')")
        #expect(seen.wait(count: 3))
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
