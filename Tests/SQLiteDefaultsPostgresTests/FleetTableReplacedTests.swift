#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import MetricsTestKit
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// The fleet's table changing under running machines — dropped and created again, swapped for
/// another, or losing its newest rows — without their connections dropping: each machine finds
/// it at its next fetch, joins the table again as a restart would, and says so in one line.
@Suite("Fleet after its table is created again", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetTableReplacedTests {
    static let rejoined = "is not the one this file was in step with"

    /// Waits until both machines hold `expected`, and shows their logs when they do not.
    private func converge(_ machines: [Machine], to expected: [String: SQLiteValue],
                          sourceLocation: SourceLocation = #_sourceLocation) async {
        for machine in machines {
            #expect(await waitUntil(timeout: .seconds(90)) { expected.allSatisfy { machine[$0.key] == $0.value } },
                    "\(machine.path): \((try? snapshot(machine.store)) ?? [:]) \(machine.log.all)", sourceLocation: sourceLocation)
        }
    }

    @Test("dropped while both sync: the first push after it re-creates the table from version 1; the other machine, whose connection never dropped, rejoins it and hears every later write")
    func droppedAndCreatedAgain() async throws {
        try await withPair { server, a, b in
            for index in 1...5 { try await b.store.set(.integer(Int64(index)), for: .raw("before.\(index)")) }
            try await a.store.set(.text("a"), for: .raw("seed.a"))
            await converge([a, b], to: ["before.5": .integer(5), "seed.a": .text("a")])
            let oldTable = try await server.psql("SELECT 'defaults_fleet'::regclass::oid")
            _ = try await server.psql("DROP TABLE defaults_fleet")
            for index in 1...3 { try await b.store.set(.integer(Int64(index)), for: .raw("after.\(index)")) }
            await converge([a, b], to: ["after.1": .integer(1), "after.2": .integer(2), "after.3": .integer(3),
                                        "before.5": .integer(5), "seed.a": .text("a")])
            // Another table, numbered afresh (which machine re-created it, and so which rows
            // hold the lowest versions, depends on who reached PostgreSQL first: not asserted).
            #expect(try await server.psql("SELECT 'defaults_fleet'::regclass::oid") != oldTable)
            // And on: writes both ways after the rejoin.
            try await a.store.set(.integer(7), for: .raw("from.a"))
            try await b.store.set(.integer(8), for: .raw("from.b"))
            await converge([a, b], to: ["from.a": .integer(7), "from.b": .integer(8)])
            #expect(try snapshot(a.store) == snapshot(b.store))
            // Each says once that it joined the new table (`a` at its next fetch, or at the
            // reconnect after a fetch that met no table; `b` when its push met none).
            for machine in [a, b] {
                #expect(machine.log.all.filter { $0.contains(Self.rejoined) }.count == 1, "\(machine.log.all)")
            }
        }
    }

    @Test("swapped for another table in one transaction: no query of either machine fails, and both find it at their next fetch, rejoin it with one line each, and go on")
    func swappedUnderLiveConnections() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let metrics = TestMetrics()
            let a = try Machine(path: directory.path + "/a.sqlite", url: server.url(), metricsFactory: metrics)
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url())
            #expect(await a.connected())
            #expect(await b.connected())
            for index in 1...5 { try await b.store.set(.integer(Int64(index)), for: .raw("before.\(index)")) }
            await converge([a, b], to: ["before.5": .integer(5)])

            // The same shape, another table: what `b` pushes next is numbered from 1 there.
            _ = try await server.psql("""
                BEGIN;
                CREATE TABLE defaults_fleet_next (LIKE defaults_fleet INCLUDING ALL);
                DROP TABLE defaults_fleet;
                ALTER TABLE defaults_fleet_next RENAME TO defaults_fleet;
                COMMIT;
                """)
            try await b.store.set(.integer(1), for: .raw("after.1"))
            try await a.store.set(.integer(2), for: .raw("after.2"))
            let expected: [String: SQLiteValue] = ["before.5": .integer(5), "after.1": .integer(1), "after.2": .integer(2)]
            await converge([a, b], to: expected)
            for machine in [a, b] {
                #expect(await waitUntil(timeout: .seconds(60)) { machine.log.all.contains { $0.contains(Self.rejoined) } }, "\(machine.log.all)")
                #expect(machine.log.all.filter { $0.contains(Self.rejoined) }.count == 1, "\(machine.log.all)")
                #expect(!machine.log.all.contains { $0.contains("retrying") }, "\(machine.log.all)")
                #expect(await machine.connected())
            }
            // In step again, and the gauge says so.
            #expect(try metrics.expectGauge("sqlitedefaults_fleet_connected", [("table", "defaults_fleet")]).lastValue == 1)
            // The table holds every key again, for a machine that joins later.
            #expect(await waitUntilAwaiting(timeout: .seconds(60)) { (try? await server.psql("SELECT count(*) FROM defaults_fleet WHERE key LIKE 'before.%'")) == "5" })
            try await b.store.set(.integer(3), for: .raw("later"))
            #expect(await waitUntil(timeout: .seconds(60)) { a["later"] == .integer(3) })
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }

    @Test("the newest rows lost under live connections (versions gone back): the machines rejoin and push again what the table lost")
    func rowsLostUnderLiveConnections() async throws {
        try await withPair { server, a, b in
            try await a.store.set(.integer(1), for: .raw("kept"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["kept"] == .integer(1) })
            try await a.store.set(.integer(2), for: .raw("lost"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["lost"] == .integer(2) })
            let newest = try await server.psql("SELECT max(version) FROM defaults_fleet")
            _ = try await server.psql("DELETE FROM defaults_fleet WHERE version = \(newest)")
            // Nothing else changes: the next fetch finds the table behind both machines.
            #expect(await waitUntilAwaiting(timeout: .seconds(90)) { (try? await server.psql("SELECT integer_value FROM defaults_fleet WHERE key = 'lost'")) == "2" },
                    "\(a.log.all) \(b.log.all)")
            // The first machine to fetch finds it, rejoins and pushes again; the other may then
            // find the table ahead of it again, with what it lost, and need no rejoin.
            #expect(await waitUntil(timeout: .seconds(60)) { (a.log.all + b.log.all).contains { $0.contains("went back in time") } },
                    "\(a.log.all) \(b.log.all)")
            try await b.store.set(.integer(3), for: .raw("later"))
            #expect(await waitUntil(timeout: .seconds(60)) { a["later"] == .integer(3) })
            #expect(try snapshot(a.store) == snapshot(b.store))
        }
    }
}
#endif
