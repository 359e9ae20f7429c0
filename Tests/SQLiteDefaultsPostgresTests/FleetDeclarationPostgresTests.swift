#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import MetricsTestKit
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// Declared keys across a real fleet: two machines, one PostgreSQL server.
@Suite("Fleet sync and declared keys, through PostgreSQL", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetDeclarationPostgresTests {
    @Test("rolling upgrade: a row the old declaration refuses keeps the local value, is logged once, and the sync goes on")
    func rollingUpgrade() async throws {
        try await withPair { _, a, b in
            // b still runs the old version (timeout: Int); a already runs the new one (String).
            let oldTimeout = DefaultsKey<Int>("timeout", default: 30)
            let newTimeout = DefaultsKey<String>("timeout", default: "30s")
            try await b.store.declare(oldTimeout)
            try await b.store.set(40, for: oldTimeout)
            #expect(await waitUntil(timeout: .seconds(60)) { a.store[DefaultsKey<SQLiteValue?>("timeout")] == .integer(40) })
            try await a.store.evolve(oldTimeout, to: newTimeout) { "\($0)s" }
            #expect(a.store[newTimeout] == "40s")
            // The sync goes on: a later key arrives at b, the refused row does not.
            try await a.store.set(1, for: DefaultsKey<Int>("fence", default: 0))
            #expect(await waitUntil(timeout: .seconds(60)) { b.store[DefaultsKey<Int>("fence", default: 0)] == 1 })
            #expect(b.store[oldTimeout] == 40)
            #expect(b.log.all.filter { $0.contains("not applied") && $0.contains("\"timeout\" is int") }.count == 1, "\(b.log.all)")
            // b's value is not pushed back over a's.
            try await a.store.set(2, for: DefaultsKey<Int>("fence", default: 0))
            #expect(await waitUntil(timeout: .seconds(60)) { b.store[DefaultsKey<Int>("fence", default: 0)] == 2 })
            #expect(a.store[newTimeout] == "40s")
            // A later row that fits b's declaration applies there.
            try await a.store.undeclare("timeout")
            try await a.store.set(50, for: oldTimeout)
            #expect(await waitUntil(timeout: .seconds(60)) { b.store[oldTimeout] == 50 })
            #expect(b.log.all.filter { $0.contains("not applied") }.count == 1)
        }
    }

    @Test("a peer with no declaration writes what only the bytes refuse (a decomposed é, JSON after a byte-order mark): the sync keeps the local value, says so once, and goes on, across a restart")
    func hostilePeerRows() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let metrics = TestMetrics()
            let store = try DefaultsStore(path: directory.path + "/a.sqlite")
            try await store.declare(DefaultsDeclaration(key: "accent", type: .string, allowedValues: ["\u{E9}", "a"]))
            try await store.declare(DefaultsDeclaration(key: "cfg", type: .json))
            let a = try Machine(path: directory.path + "/a.sqlite", url: server.url(), store: store, metricsFactory: metrics)
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url())
            #expect(await a.connected())
            #expect(await b.connected())

            try await b.store.set(.text("e\u{301}"), for: .raw("accent"))
            _ = try await sqlite3(b.path, "INSERT INTO defaults(key, value) VALUES ('cfg', char(65279) || '{}')")
            // The marker: written after the refused rows, so once it is here they were dealt with.
            try await b.store.set(.integer(1), for: .raw("later"))
            #expect(await waitUntil(timeout: .seconds(60)) { a["later"] == .integer(1) }, "\(a.log.all)")
            #expect(!a.hasEnded)
            #expect(a["accent"] == nil && a["cfg"] == nil)
            let refusals = { a.log.all.filter { $0.contains("not applied") } }
            // b's sync learns of the shell's row from its file monitor and of its own write at
            // once, so the two may be pushed in either order: wait for both refusals.
            #expect(await waitUntil(timeout: .seconds(60)) { refusals().count >= 2 }, "\(a.log.all)")
            #expect(refusals().count == 2, "\(a.log.all)")
            let dimensions = [("table", "defaults_fleet")]
            #expect(metrics.counterTotal(label: "sqlitedefaults_fleet_refused_rows_total", dimensions: dimensions) == 2)

            // Restarted, the sync neither stops at those rows nor says so again; later rows arrive.
            #expect(await a.stop() == nil)
            let restarted = try Machine(path: a.path, url: server.url(), store: store)
            #expect(await restarted.connected())
            try await b.store.set(.integer(2), for: .raw("later"))
            #expect(await waitUntil(timeout: .seconds(60)) { restarted["later"] == .integer(2) }, "\(restarted.log.all)")
            #expect(!restarted.log.all.contains { $0.contains("not applied") }, "\(restarted.log.all)")
            // And the local values were not pushed over the peer's.
            #expect(b["accent"] == .text("e\u{301}"))
            #expect(await restarted.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }
}
#endif
