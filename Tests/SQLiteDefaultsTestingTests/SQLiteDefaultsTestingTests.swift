import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Synchronization
import Testing
import TestScheduling

extension DefaultsKeys {
    fileprivate static let name = DefaultsKey<String>("name", default: "Guest")
    fileprivate static let marker = DefaultsKey<Bool>("marker", default: false)
}

@Suite("SQLiteDefaultsTesting: the temporary store, the change collector and eventually", .offThePool)
struct SQLiteDefaultsTestingTests {
    @Test("a temporary store lives in a directory of its own, removed on close")
    func temporaryStoreIsRemovedOnClose() throws {
        let temporary = try TemporaryDefaultsStore()
        temporary.store[.name] = "Ada"
        #expect(FileManager.default.fileExists(atPath: temporary.path))
        #expect(temporary.store.path == temporary.path)
        let other = try temporary.openAnother()
        #expect(other[.name] == "Ada")
        try other.close()
        try temporary.close()
        #expect(!FileManager.default.fileExists(atPath: temporary.directory))
        #expect(temporary.store.isClosed)
        try temporary.close()  // again: nothing more to do
    }

    @Test("a released temporary store removes its directory")
    func temporaryStoreIsRemovedOnRelease() throws {
        var temporary: TemporaryDefaultsStore? = try DefaultsStore.temporary()
        let directory = try #require(temporary?.directory)
        temporary?.store[.name] = "Grace"
        #expect(FileManager.default.fileExists(atPath: directory))
        temporary = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("a collector of one key returns its changes in order with next(), and another store's with their origin")
    func collectorOfOneKey() async throws {
        let temporary = try TemporaryDefaultsStore()
        let collector = DefaultsChangeCollector(temporary.store, key: .name)
        temporary.store[.name] = "Ada"
        temporary.store[.name] = "Grace"
        let first = try await collector.next(timeout: .seconds(30))
        let second = try await collector.next(timeout: .seconds(30))
        #expect(first.newValue == "Ada" && first.origin == .local)
        #expect(second.newValue == "Grace")
        let other = try temporary.openAnother()
        other[.name] = "Lin"
        let external = try await collector.next(timeout: .seconds(30))
        #expect(external.newValue == "Lin" && external.origin == .external)
        #expect(collector.all.map(\.newValue) == ["Ada", "Grace", "Lin"])
        try other.close()
    }

    @Test("a collector of every key waits for a key and value; a marker shows nothing else arrived")
    func collectorOfEveryKeyWithAMarker() async throws {
        let temporary = try TemporaryDefaultsStore()
        let collector = DefaultsChangeCollector(temporary.store)
        temporary.store[.name] = "Ada"
        temporary.store[.name] = "Ada"  // unchanged: not announced
        temporary.store[.marker] = true
        try await collector.waitFor(key: "marker", value: .integer(1))
        #expect(collector.all.map(\.key) == ["name", "marker"])
        #expect(collector.all.first?.newValue == .text("Ada"))
    }

    @Test("a collector of a sequence: updates(_:) starts with the current value")
    func collectorOfASequence() async throws {
        let temporary = try TemporaryDefaultsStore()
        temporary.store[.name] = "Ada"
        let values = DefaultsChangeCollector(temporary.store.updates(.name))
        #expect(try await values.next() == "Ada")
        temporary.store[.name] = "Grace"
        #expect(try await values.next() == "Grace")
        let changes = DefaultsChangeCollector(temporary.store.changes(.name))
        temporary.store[.name] = "Lin"
        try await changes.waitFor(key: "name", value: "Lin")
        values.cancel()
        changes.cancel()
    }

    @Test("waiting for what never comes throws WaitTimedOut that says what and where")
    func timeoutsThrowAClearError() async throws {
        let temporary = try TemporaryDefaultsStore()
        let collector = DefaultsChangeCollector(temporary.store, key: .name)
        let error = await #expect(throws: WaitTimedOut.self) {
            try await collector.next(timeout: .milliseconds(50))
        }
        #expect(error?.timeout == .milliseconds(50))
        #expect(error?.description.contains("SQLiteDefaultsTestingTests.swift") == true)
        temporary.store[.name] = "Ada"
        let wrongValue = await #expect(throws: WaitTimedOut.self) {
            try await collector.waitFor(key: "name", value: "Grace", timeout: .milliseconds(200))
        }
        #expect(wrongValue?.description.contains("name = Grace") == true)
        #expect(wrongValue?.description.contains("Ada") == true, "the error lists what did arrive")
        await #expect(throws: WaitTimedOut.self) {
            try await collector.waitFor(count: 2, timeout: .milliseconds(50))
        }
    }

    @Test("eventually returns as soon as the condition holds, counts a throw as not yet, and names the last error")
    func eventuallyPollsUntilTheConditionHolds() async throws {
        // Generous deadlines: the whole suite shares two cores, and a starved pool delays each check.
        let checks = Mutex(0)
        try await eventually(timeout: .seconds(60)) { checks.withLock { $0 += 1; return $0 >= 3 } }
        #expect(checks.withLock { $0 } == 3)

        struct NotYet: Error {}
        let attempts = Mutex(0)
        try await eventually(timeout: .seconds(60)) {
            try attempts.withLock { count in
                count += 1
                if count < 2 { throw NotYet() }
                return true
            }
        }
        let error = await #expect(throws: WaitTimedOut.self) {
            try await eventually(timeout: .milliseconds(30), "the impossible") { throw NotYet() }
        }
        #expect(error?.what.contains("the impossible") == true)
        #expect(error?.what.contains("NotYet") == true)
    }
}
