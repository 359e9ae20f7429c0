#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// PostgreSQL going back in time under a running fleet: its data directory restored from a
/// copy, as after a restore from backup or a failover to a replica that lagged behind.
@Suite("Fleet after PostgreSQL goes back in time", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetRewindTests {
    @Test("a restored server: the machines rejoin, push again what it lost, and hear each other's later writes")
    func restoredFromCopy() async throws {
        try await withPair { server, a, b in
            try await a.store.set(.integer(1), for: .raw("kept"))
            try await a.store.set(.integer(1), for: .raw("changed"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["kept"] == .integer(1) && b["changed"] == .integer(1) })

            try await server.stopServer()
            let backup = try await server.snapshot()
            try await server.startServer()

            // Acknowledged everywhere, then lost from PostgreSQL by the restore.
            try await a.store.set(.integer(2), for: .raw("changed"))
            try await a.store.set(.text("a"), for: .raw("lost.a"))
            try await b.store.set(.text("b"), for: .raw("lost.b"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["lost.a"] == .text("a") && b["changed"] == .integer(2) && a["lost.b"] == .text("b") })
            #expect(await waitUntilAwaiting(timeout: .seconds(60)) { (try? await server.psql("SELECT count(*) FROM defaults_fleet")) == "4" })

            try await server.stopServer()
            try await server.restore(backup)
            try await server.startServer()

            // Written after the restore: numbered again from below by a sync that did not notice.
            try await a.store.set(.text("a"), for: .raw("after.a"))
            try await b.store.set(.text("b"), for: .raw("after.b"))

            let expected: [String: SQLiteValue] = [
                "kept": .integer(1), "changed": .integer(2), "lost.a": .text("a"), "lost.b": .text("b"),
                "after.a": .text("a"), "after.b": .text("b"),
            ]
            for machine in [a, b] {
                #expect(await waitUntil(timeout: .seconds(60)) { expected.allSatisfy { machine[$0.key] == $0.value } },
                        "\(machine.path): \((try? snapshot(machine.store)) ?? [:]) \(machine.log.all)")
            }
            #expect(await waitUntilAwaiting(timeout: .seconds(60)) { (try? await server.psql("SELECT count(*) FROM defaults_fleet")) == "\(expected.count)" })
            #expect(try await server.psql("SELECT integer_value FROM defaults_fleet WHERE key = 'changed'") == "2")

            // And the fleet goes on: later writes on either side arrive.
            try await b.store.set(.integer(3), for: .raw("changed"))
            #expect(await waitUntil(timeout: .seconds(60)) { a["changed"] == .integer(3) })
            try await a.store.set(.integer(4), for: .raw("later"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["later"] == .integer(4) })
            #expect(try snapshot(a.store) == snapshot(b.store))
        }
    }

    @Test("machines away during the restore, and a new one that joined meanwhile numbering from below, all converge")
    func awayDuringRestore() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let a = try Machine(path: directory.path + "/a.sqlite", url: server.url())
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url())
            #expect(await a.connected())
            #expect(await b.connected())
            try await a.store.set(.integer(1), for: .raw("x"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["x"] == .integer(1) })
            try await server.stopServer()
            let backup = try await server.snapshot()
            try await server.startServer()
            try await a.store.set(.integer(2), for: .raw("lost"))
            try await b.store.set(.integer(2), for: .raw("lost.b"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["lost"] == .integer(2) && a["lost.b"] == .integer(2) })
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
            try a.store.close()
            try b.store.close()

            try await server.stopServer()
            try await server.restore(backup)
            try await server.startServer()
            // A new machine, alone with the restored table: its pushes take versions the others
            // already saw before the restore.
            let c = try Machine(path: directory.path + "/c.sqlite", url: server.url())
            #expect(await c.connected())
            try await c.store.set(.integer(3), for: .raw("c.new"))
            try await c.store.set(.integer(9), for: .raw("x"))
            #expect(await waitUntilAwaiting(timeout: .seconds(60)) { (try? await server.psql("SELECT count(*) FROM defaults_fleet WHERE key IN ('c.new', 'x') AND version > 1")) == "2" })

            let a2 = try Machine(path: a.path, url: server.url())
            let b2 = try Machine(path: b.path, url: server.url())
            let expected: [String: SQLiteValue] = ["x": .integer(9), "lost": .integer(2), "lost.b": .integer(2), "c.new": .integer(3)]
            for machine in [a2, b2, c] {
                #expect(await waitUntil(timeout: .seconds(60)) { expected.allSatisfy { machine[$0.key] == $0.value } },
                        "\(machine.path): \((try? snapshot(machine.store)) ?? [:]) \(machine.log.all)")
            }
            for machine in [a2, b2, c] { #expect(await machine.stop() == nil) }
        }
    }
}
#endif
