import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

private let count = DefaultsKey<Int>("count", default: 0)
private let name = DefaultsKey<String>("name", default: "")

private struct Refused: Error, Equatable {}

/// The code of the ``DefaultsError`` an async `body` throws; nil when it throws nothing or another error.
private func code(of body: () async throws -> Void) async -> DefaultsError.Code? {
    do {
        try await body()
        return nil
    } catch let error as DefaultsError {
        return error.code
    } catch {
        return nil
    }
}

/// Holds the file's write lock from another process until released (killed).
private func holdLock(_ database: String) async throws -> RunningHelper {
    let helper = try RunningHelper(["hold-transaction", database, "held"])
    guard await helper.line({ $0 == "holding" }) != nil else {
        throw DefaultsError(.sqlite, "the helper did not take the lock: \(helper.errors)")
    }
    return helper
}

/// A store whose writes wait for another process's lock far longer than any test below waits
/// for them to be parked: on a machine loaded by the rest of the suite the default busy timeout
/// (10 s) can run out between two looks of `waitUntilParked`, and the write then fails with
/// `.busy` instead of waiting to be cancelled or closed.
private func patientStore(_ directory: TemporaryDirectory) throws -> DefaultsStore {
    var configuration = DefaultsStore.Configuration()
    configuration.busyTimeout = .seconds(300)
    return try DefaultsStore(path: directory.database, configuration: configuration)
}

/// Waits (suspending) until `parked` jobs wait for the lock on the store's thread.
private func waitUntilParked(_ store: DefaultsStore, _ parked: Int) async -> Bool {
    await waitUntil { store.core.storeThread.parkedCount >= parked }
}

/// A synchronous transaction (in async code the compiler would pick the async form).
private func writeSynchronously(_ store: DefaultsStore) throws {
    try store.transaction { tx in tx[count] = 3 }
}

@Suite("Writer: async calls run on the store's own thread", .offThePool)
struct StoreThreadTests {
    @Test func asyncWritesAndReadsStepNoStatementOnThePool() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let mark = StatementProbe.start()
        try await store.set(1, for: count)
        try await store.modify(count) { $0 += 1 }
        try await store.transaction { tx in tx[name] = "Ada" }
        try await store.set("Bob", for: name, actor: "alice", reason: "test")
        try await store.declare(DefaultsDeclaration(key: "mode", type: .string, defaultValue: .text("fast")))
        let history = try await store.history(keys: nil, limit: 10)
        let entries = try await store.entries()
        try await store.remove(name)
        let seen = StatementProbe.stop(mark, under: directory.path)
        #expect(seen.isEmpty, "statements stepped on the pool: \(seen)")
        #expect(store[count] == 2)
        #expect(history.count >= 3)
        #expect(entries.contains { $0.key == "count" })
    }

    @Test func theProbeSeesAStatementSteppedOnThePool() async throws {
        // The hook itself can fail: a synchronous set made inside a task is recorded.
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let mark = StatementProbe.start()
        try writeSynchronously(store)
        let seen = StatementProbe.stop(mark, under: directory.path)
        #expect(!seen.isEmpty)
    }

    @MainActor
    @Test func aWriteAwaitedFromTheMainActor() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.set(7, for: count)
        let doubled = try await store.modify(count) { value -> Int in
            value *= 2
            return value
        }
        #expect(doubled == 14)
        #expect(store[count] == 14)
    }

    @Test func aTransactionClosureThatThrowsRollsBackAndReachesTheCaller() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        await #expect(throws: Refused.self) {
            try await store.transaction { tx in
                tx[count] = 5
                throw Refused()
            }
        }
        #expect(try store.value(for: count) == 0)
        #expect(!store.contains(count))
    }

    @Test func eachCallerGetsItsOwnError() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        async let bad: DefaultsError.Code? = code { try await store.set(1, for: DefaultsKey<Int>("", default: 0)) }
        async let good: DefaultsError.Code? = code { try await store.set(2, for: count) }
        let (badCode, goodCode) = await (bad, good)
        #expect(badCode == .invalidKey)
        #expect(goodCode == nil)
        #expect(store[count] == 2)
    }

    @Test func callsOneRightAfterAnotherEachGetTheirOwnResult() async throws {
        // One task's calls back to back: most are answered while their caller still looks for
        // the result (the thread is awake between them), and a 300-key transaction every 50th
        // outlasts the look, so its caller suspends and the next one finds the thread busy.
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let keys = (0..<300).map { DefaultsKey<Int>("bulk.\($0)", default: 0) }
        for round in 0..<1_000 {
            if round % 50 == 0 {
                try await store.transaction { tx in for key in keys { tx[key] = round } }
            }
            let got = try await store.modify(count) { value -> Int in
                value += 1
                return value
            }
            #expect(got == round + 1)
        }
        #expect(store[count] == 1_000)
        #expect(store[keys[299]] == 950)
    }

    @Test func aTaskCancelledBeforeItsWriteStartsWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await store.set(9, for: count)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        try await store.set("next", for: name)  // after the cancelled one in the thread's order
        #expect(!store.contains(count))
    }

    @Test func aTaskCancelledWhileItsWriteWaitsForTheLockWritesNothing() async throws {
        let directory = try TemporaryDirectory()
        let store = try patientStore(directory)
        let holder = try await holdLock(directory.database)
        let task = Task { try await store.set(9, for: count) }
        #expect(await waitUntilParked(store, 1))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        holder.send(SIGKILL)
        _ = await holder.exitStatus()
        try await store.set("after", for: name)
        #expect(!store.contains(count))
        #expect(store[name] == "after")
    }

    @Test func closingTheStoreFailsEveryQueuedWriteByName() async throws {
        let directory = try TemporaryDirectory()
        let store = try patientStore(directory)
        let holder = try await holdLock(directory.database)
        let writes = (1...3).map { value in
            Task { await code { try await store.set(value, for: DefaultsKey<Int>("k\(value)", default: 0)) } }
        }
        #expect(await waitUntilParked(store, 3))
        try store.close()
        for write in writes {
            #expect(await write.value == .closed)
        }
        holder.send(SIGKILL)
        _ = await holder.exitStatus()
        let reopened = try DefaultsStore(path: directory.database)
        #expect(try await reopened.keys().filter { $0.hasPrefix("k") }.isEmpty)
    }

    @Test func theBusyTimeoutNamesTheRealWait() async throws {
        let directory = try TemporaryDirectory()
        var configuration = DefaultsStore.Configuration()
        configuration.busyTimeout = .milliseconds(300)
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        let holder = try await holdLock(directory.database)
        let started = ContinuousClock.now
        do {
            try await store.set(1, for: count)
            Issue.record("the write succeeded while another process held the lock")
        } catch let error as DefaultsError {
            #expect(error.code == .busy)
            #expect(ContinuousClock.now - started >= .milliseconds(300))
            #expect(error.message.contains(" ms"), "\(error.message)")
            #expect(error.message.contains("300 ms"), "\(error.message)")
        }
        holder.send(SIGKILL)
        _ = await holder.exitStatus()
        #expect(!store.contains(count))
    }

    @Test func writesWaitingForAnotherProcessStopNoOtherTask() async throws {
        // Eight async sets behind another process's lock, on a pool of a few threads: reads of
        // the store and other tasks go on while every one of them still waits.
        let directory = try TemporaryDirectory()
        // The reads below may take seconds on a loaded machine; the writes must still be
        // waiting (parked) when they are counted, not failed with `.busy`.
        let store = try patientStore(directory)
        try await store.set(1, for: count)
        let holder = try await holdLock(directory.database)
        let writes = (1...8).map { value in
            Task { try await store.set(value, for: DefaultsKey<Int>("w\(value)", default: 0)) }
        }
        #expect(await waitUntilParked(store, 8))
        let entries = try await store.entries()
        let history = try await store.history(keys: ["count"], limit: 5)
        let other = await Task.detached { (1...1000).reduce(0, +) }.value
        #expect(entries.contains { $0.key == "count" })
        #expect(history.count == 1)
        #expect(other == 500_500)
        #expect(store.core.storeThread.parkedCount == 8, "the writes still wait: the answers did not wait for them")
        holder.send(SIGKILL)
        _ = await holder.exitStatus()
        for write in writes { try await write.value }
        #expect(try await store.keys().filter { $0.hasPrefix("w") }.count == 8)
    }
}
