import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

struct Refusal: Error, Equatable { let reason: String }

@Suite("Transactions and modify", .offThePool, .requiresSQLiteShell)
struct TransactionTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func commitsAllTogether() throws {
        let store = try DefaultsStore(path: directory.database)
        let result = try store.transaction { tx in
            tx[.name] = "Bob"
            tx[.count] = 2
            #expect(tx[.name] == "Bob")  // reads see the transaction's own writes
            #expect(tx.contains(.count))
            return "done"
        }
        #expect(result == "done")
        #expect(store[.name] == "Bob")
        #expect(try DefaultsStore(path: directory.database)[.count] == 2)
    }

    @Test func anErrorInsideRollsBackAndComesOutUnchanged() async throws {
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "Ada"
        #expect(throws: Refusal(reason: "no")) {
            try store.transaction { tx in
                tx[.name] = "Bob"
                tx[.count] = 5
                throw Refusal(reason: "no")
            }
        }
        #expect(store[.name] == "Ada")
        #expect(store[.count] == 0)
        #expect(try await sqlite3(directory.database, "SELECT key || '=' || value FROM defaults") == "name=Ada")
    }

    @Test func aFailedSetterInsideRollsBack() throws {
        let store = try DefaultsStore(path: directory.database)
        let error = #expect(throws: DefaultsError.self) {
            try store.transaction { tx in
                tx[.count] = 1
                tx[DefaultsKey<Int>("", default: 0)] = 2
            }
        }
        #expect(error?.code == .invalidKey)
        #expect(store[.count] == 0)
    }

    @Test func storeCallsInsideATransactionJoinIt() throws {
        let store = try DefaultsStore(path: directory.database)
        #expect(throws: Refusal.self) {
            try store.transaction { _ in
                store[.count] = 10
                #expect(store[.count] == 10)
                try store.modify(.count) { $0 += 1 }
                throw Refusal(reason: "undo")
            }
        }
        #expect(store[.count] == 0)
    }

    @Test func nestedTransactionsAreSavepoints() throws {
        let store = try DefaultsStore(path: directory.database)
        try store.transaction { tx in
            tx[.count] = 1
            try? store.transaction { inner in
                inner[.count] = 2
                inner[.name] = "inner"
                throw Refusal(reason: "inner only")
            }
            #expect(tx[.count] == 1)
            #expect(tx[.name] == "Guest")
            try store.transaction { inner in inner[.name] = "kept" }
        }
        #expect(store[.count] == 1)
        #expect(store[.name] == "kept")
    }

    @Test func modifyReturnsTheBodysResult() throws {
        let store = try DefaultsStore(path: directory.database)
        let old = try store.modify(.count) { value -> Int in
            defer { value += 5 }
            return value
        }
        #expect(old == 0)
        #expect(store[.count] == 5)
        #expect(throws: Refusal.self) { try store.modify(.count) { _ in throw Refusal(reason: "x") } }
        #expect(store[.count] == 5)
    }

    @Test func eightTasksModifyingConcurrentlyLoseNothing() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<250 { try store.modify(.count) { $0 += 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(store[.count] == 2000)
        #expect(try DefaultsStore(path: directory.database)[.count] == 2000)
    }

    @Test func fourProcessesModifyingOneFileLoseNothing() async throws {
        _ = try DefaultsStore(path: directory.database)  // create the schema once
        let database = directory.database
        let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
            for _ in 0..<4 {
                group.addTask { try await runHelper("modify-loop", database, "count", "250") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.error)") }
        #expect(try DefaultsStore(path: directory.database)[.count] == 1000)
    }

    @Test func inMemoryStoreWorksAlone() throws {
        let store = try DefaultsStore.inMemory()
        #expect(store.path == nil)
        store[.name] = "memory"
        try store.modify(.count) { $0 += 3 }
        #expect(store[.name] == "memory")
        #expect(store[.count] == 3)
        #expect(try DefaultsStore.inMemory()[.name] == "Guest")
    }
}
