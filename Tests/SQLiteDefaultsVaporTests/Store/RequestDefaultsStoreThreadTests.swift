#if Vapor
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsVapor
import Synchronization
import Testing
import VaporTesting
import TestScheduling

/// A count the routes share.
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

@Suite("req.defaults: writes waiting for another writer's lock freeze no route", .offThePool)
struct RequestDefaultsStoreThreadTests {
    static let count = DefaultsKey<Int>("count", default: 0)

    @Test("Four writes wait behind a held lock; a read that needs none answers meanwhile, and no statement runs on the pool")
    func readsAnswerWhileWritesWait() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/defaults.sqlite"
        let entered = Counter(), finished = Counter()
        try await withApp { app in
            // A busy timeout longer than any wait below: on a machine loaded by the rest of the
            // suite the writes must still be waiting when the reads have answered.
            var configuration = DefaultsStore.Configuration()
            configuration.busyTimeout = .seconds(300)
            try app.defaults.use(path: database, configuration: configuration)
            try await app.defaults.store.set(1, for: Self.count)
            app.put("k", ":n") { req async throws -> String in
                let n = req.parameters.get("n", as: Int.self) ?? 0
                entered.add()
                try await req.defaults.set(n, for: DefaultsKey<Int>("k\(n)", default: 0))
                finished.add()
                return "ok"
            }
            app.get("keys") { req async throws -> String in
                try await req.defaults.keys().joined(separator: ",")
            }
            app.get("health") { _ in "ok" }
            let holder = try LockHolder(database)
            #expect(await holder.held())
            let mark = StatementProbe.start()
            let tester = try app.testing()
            let puts = (1...4).map { n in
                Task { try await tester.test(.PUT, "k/\(n)") { #expect($0.status == .ok) } }
            }
            #expect(await waitUntil { entered.value == 4 })
            try await tester.test(.GET, "health") { #expect($0.body.string == "ok") }
            try await tester.test(.GET, "keys") { response in
                #expect(response.status == .ok)
                #expect(response.body.string.split(separator: ",").contains("count"))
            }
            #expect(finished.value == 0, "the writes still wait for the lock: the read did not wait for them")
            #expect(await holder.release())
            for put in puts { _ = try await put.value }
            let seen = StatementProbe.stop(mark, under: directory.path)
            #expect(seen.isEmpty, "statements stepped on the pool: \(seen)")
            #expect(try await app.defaults.store.keys().filter { $0.hasPrefix("k") }.count == 4)
        }
    }
}
#endif
