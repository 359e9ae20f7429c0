#if Fleet && Prefs
import ChildProcesses
import DefaultsTestSupport
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// A relayed fleet for one test: the primary (`wal_level = logical`), two relays (clusters of
/// their own) set up by ``DefaultsFleetRelay/setUp(table:primary:relays:primaryConnectionInfo:logger:)``,
/// PgBouncer in transaction mode in front of the primary, and the fleet's role `fleet` (not a
/// superuser), which owns nothing: it may push on the primary and read the relays' copies.
final class RelayedFleet: Sendable {
    let primary: PostgresServer
    let relays: [PostgresServer]
    let bouncer: PgBouncer
    static let password = "relay-secret"

    init() async throws {
        primary = try await PostgresServer.start(label: "primary", settings: ["wal_level": "logical"])
        var relays: [PostgresServer] = []
        for index in 0..<2 { relays.append(try await PostgresServer.start(label: "relay\(index)")) }
        self.relays = relays
        for server in [primary] + relays {
            try await server.createUser("fleet", password: Self.password)
            try await server.createDatabase("fleet", owner: "fleet")
        }
        try await DefaultsFleetRelay.setUp(primary: PostgresURL(primary.url(database: "fleet")),
                                           relays: relays.map { try PostgresURL($0.url(database: "fleet")) })
        _ = try await primary.psql("GRANT SELECT, INSERT, UPDATE ON defaults_fleet TO fleet", database: "fleet")
        for relay in relays { _ = try await relay.psql("GRANT SELECT ON defaults_fleet TO fleet", database: "fleet") }
        bouncer = try await PgBouncer.start(inFrontOf: primary, database: "fleet", user: "fleet", password: Self.password)
    }

    /// The pooler, as the machines reach the primary.
    var poolerURL: String { bouncer.url(database: "fleet", user: "fleet", password: Self.password) }
    var relayURLs: [String] { relays.map { $0.url(user: "fleet", password: Self.password, database: "fleet") } }

    /// A relayed machine on `path`.
    func machine(_ path: String, relays: [String]? = nil, timing: DefaultsPostgresSync.Timing = .test) throws -> Machine {
        try Machine(path: path, url: poolerURL, timing: timing, diagnoses: true, relays: relays ?? relayURLs)
    }

    /// How many connections on `server` have `LISTEN` as their last statement: on the primary,
    /// where pooled connections' last statements are pushes and fetches, the machines listening there.
    static func listeners(on server: PostgresServer) async throws -> Int {
        Int(try await server.psql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND query LIKE 'LISTEN%'",
                            database: "fleet").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// How many of the fleet's connections a relay holds: one per machine listening there.
    static func machines(on relay: PostgresServer) async throws -> Int {
        Int(try await relay.psql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND usename = 'fleet'",
                           database: "fleet").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func remove() {
        bouncer.remove()
        for server in [primary] + relays { server.remove() }
    }

    /// ``remove()``, each `pg_ctl stop` waited for on a thread of its own.
    func remove() async {
        await bouncer.remove()
        for server in [primary] + relays { await server.remove() }
    }
}

/// Each test starts three PostgreSQL clusters and a PgBouncer. It once had to run alone: with
/// the test support's `psql` and `pg_ctl` calls, and the other suites' synchronous test bodies,
/// holding the cooperative pool's two threads, that load made other fleet suites' syncs miss
/// their deadlines. Those calls now run on threads of their own (PostgresServer+Async.swift),
/// and so do the polls below and every test body (`.offThePool`).
@Suite("Fleet through relays and a pooler", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetRelayTests {
    /// Runs `prefs ARGUMENTS` to its end (the user's own password file never counts).
    static func prefs(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        let child = try ChildProcess(builtExecutable("prefs"), arguments, environment: ["PGPASSWORD": "", "PGPASSFILE": "/nonexistent"])
        return try #require(await child.wait(timeout: .seconds(120)), "prefs \(arguments) did not finish")
    }

    @Test("a write reaches every machine through the relays, every storage class exact, a payload too large included; no machine listens on the primary")
    func writesReachEveryMachine() async throws {
        let fleet = try await RelayedFleet()
        defer { fleet.remove() }  // on a failure path; else awaited at the end
        let directory = try TemporaryDirectory()
        var machines: [Machine] = []
        for index in 0..<4 { machines.append(try fleet.machine(directory.path + "/m\(index).sqlite")) }
        for machine in machines { #expect(await machine.connected(), "\(machine.log.all)") }

        let values: [(String, SQLiteValue)] = [
            ("int", .integer(Int64.min)), ("real", .real(Double(bitPattern: 1))), ("minus-zero", .real(-0.0)),
            ("text", .text("héllo\n'quoted'")), ("bad-utf8", .invalidUTF8Text(Data([0x66, 0xFF, 0x00, 0x67]))),
            ("blob", .blob(Data((0..<64).map { UInt8($0) }))), ("null", .null),
            // Past the 7,999 bytes a notification carries: the relay notifies the version alone.
            ("large", .blob(Data(repeating: 0xAB, count: 12_000))),
        ]
        for (key, value) in values { try await machines[0].store.set(value, for: .raw(key)) }
        try await machines[0].store.set(.integer(1), for: .raw("gone"))
        try await machines[0].store.remove(.raw("gone"))
        let expected = try snapshot(machines[0].store)
        for machine in machines.dropFirst() {
            #expect(await waitUntil(timeout: .seconds(60)) { (try? snapshot(machine.store)) == expected },
                    "\(machine.path): \((try? snapshot(machine.store)) ?? [:]) \(machine.log.all)")
        }
        // And back from another machine.
        try await machines[3].store.set(.text("from three"), for: .raw("back"))
        #expect(await waitUntil(timeout: .seconds(60)) { machines[0]["back"] == .text("from three") })

        #expect(try await RelayedFleet.listeners(on: fleet.primary) == 0)
        var held = 0
        for relay in fleet.relays { held += try await RelayedFleet.machines(on: relay) }
        #expect(held == machines.count)
        for machine in machines { await machine.stop() }
        await fleet.remove()
    }

    @Test("a server that is not a relay (no copy of the table, no trigger) ends the sync with a typed error naming the fix")
    func notARelayIsRefused() async throws {
        let fleet = try await RelayedFleet()
        defer { fleet.remove() }  // on a failure path; else awaited at the end
        let bare = try await PostgresServer.start(label: "bare")
        defer { bare.remove() }  // on a failure path; else awaited at the end
        let directory = try TemporaryDirectory()
        let machine = try fleet.machine(directory.path + "/m.sqlite", relays: [bare.url()])
        let failure = await machine.failure(timeout: .seconds(60))
        let error = try #require(failure as? DefaultsError, "\(String(describing: failure)) \(machine.log.all)")
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("prefs relay"), "\(error.message)")
        await bare.remove()
        await fleet.remove()
    }

    @Test("a relay that stops: its machines say so within seconds and move to the other relay; writes keep arriving")
    func aStoppedRelayIsLeft() async throws {
        let fleet = try await RelayedFleet()
        defer { fleet.remove() }  // on a failure path; else awaited at the end
        let directory = try TemporaryDirectory()
        var machines: [Machine] = []
        for index in 0..<4 { machines.append(try fleet.machine(directory.path + "/m\(index).sqlite")) }
        for machine in machines { #expect(await machine.connected(), "\(machine.log.all)") }
        let onFirst = try await RelayedFleet.machines(on: fleet.relays[0])

        try await fleet.relays[0].stopServer()
        let stopped = ContinuousClock.now
        if onFirst > 0 {
            // Those machines lost their relay: each says so (the contract: within 5 s).
            let said = await waitUntil(timeout: .seconds(15)) {
                machines.filter { $0.log.all.contains { $0.contains("the relay") } }.count >= onFirst
            }
            #expect(said, "\(machines.map(\.log.all))")
            print("machines that lost their relay said so within \(ContinuousClock.now - stopped)")
        }
        // All of them end up listening on the other relay.
        #expect(await waitUntilAwaiting(timeout: .seconds(60)) { try await RelayedFleet.machines(on: fleet.relays[1]) == machines.count })
        #expect(await waitUntil(timeout: .seconds(60)) { machines.allSatisfy(\.sync.isConnected) })
        try await machines[0].store.set(.text("after"), for: .raw("relay.stopped"))
        for machine in machines.dropFirst() {
            #expect(await waitUntil(timeout: .seconds(60)) { machine["relay.stopped"] == .text("after") }, "\(machine.log.all)")
        }
        try await fleet.relays[0].startServer()
        for machine in machines { await machine.stop() }
        await fleet.remove()
    }

    @Test("a relay whose subscription stops: its machines say so once, still get every write from the primary's periodic check, and say when it caught up")
    func aRelayThatFallsBehindIsSaid() async throws {
        let fleet = try await RelayedFleet()
        defer { fleet.remove() }  // on a failure path; else awaited at the end
        let directory = try TemporaryDirectory()
        var timing = DefaultsPostgresSync.Timing.test
        timing.primaryCheckInterval = .seconds(2)
        // Both machines on the first relay, so the one that writes is not the only one that hears.
        let writer = try fleet.machine(directory.path + "/writer.sqlite", relays: [fleet.relayURLs[1]], timing: timing)
        let reader = try fleet.machine(directory.path + "/reader.sqlite", relays: [fleet.relayURLs[0]], timing: timing)
        #expect(await writer.connected())
        #expect(await reader.connected())
        let subscription = try await fleet.relays[0].psql("SELECT subname FROM pg_subscription", database: "fleet")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try await fleet.relays[0].psql("ALTER SUBSCRIPTION \"\(subscription)\" DISABLE", database: "fleet")

        for index in 0..<3 {
            try await writer.store.set(.integer(Int64(index)), for: .raw("behind.\(index)"))
            #expect(await waitUntil(timeout: .seconds(60)) { reader["behind.\(index)"] == .integer(Int64(index)) }, "\(reader.log.all)")
        }
        #expect(await waitUntil(timeout: .seconds(60)) { reader.log.all.contains { $0.contains("the relay is") && $0.contains("behind the primary") } },
                "\(reader.log.all)")
        #expect(reader.log.all.filter { $0.contains("behind the primary") }.count == 1, "\(reader.log.all)")

        _ = try await fleet.relays[0].psql("ALTER SUBSCRIPTION \"\(subscription)\" ENABLE", database: "fleet")
        #expect(await waitUntil(timeout: .seconds(60)) { reader.log.all.contains { $0.contains("the relay caught up") } }, "\(reader.log.all)")
        await writer.stop()
        await reader.stop()
        await fleet.remove()
    }

    @Test("a fleet moved from the single server to relays one machine at a time loses no write: mixed, both kinds hear each other; a write made while a machine's sync was down is pushed by its relayed sync")
    func movingAFleetLosesNothing() async throws {
        let fleet = try await RelayedFleet()
        defer { fleet.remove() }  // on a failure path; else awaited at the end
        let directory = try TemporaryDirectory()
        let primaryURL = fleet.primary.url(user: "fleet", password: RelayedFleet.password, database: "fleet")
        let single = try Machine(path: directory.path + "/single.sqlite", url: primaryURL)
        let relayed = try fleet.machine(directory.path + "/relayed.sqlite")
        #expect(await single.connected())
        #expect(await relayed.connected())

        try await single.store.set(.text("s"), for: .raw("from.single"))
        try await relayed.store.set(.text("r"), for: .raw("from.relayed"))
        #expect(await waitUntil(timeout: .seconds(60)) { relayed["from.single"] == .text("s") })
        #expect(await waitUntil(timeout: .seconds(60)) { single["from.relayed"] == .text("r") })

        // The single machine moves: its sync stops, it writes meanwhile, the other writes too.
        await single.stop()
        try await single.store.set(.text("offline"), for: .raw("while.moving"))
        try await relayed.store.set(.text("meanwhile"), for: .raw("during.move"))
        let moved = try fleet.machine(single.path, timing: .test)
        #expect(await moved.connected(), "\(moved.log.all)")
        #expect(await waitUntil(timeout: .seconds(60)) { relayed["while.moving"] == .text("offline") })
        #expect(await waitUntil(timeout: .seconds(60)) { moved["during.move"] == .text("meanwhile") })
        #expect(try await RelayedFleet.listeners(on: fleet.primary) == 0)
        await moved.stop()
        await relayed.stop()
        await fleet.remove()
    }

    @Test("prefs relay sets up the primary and the relays (again: nothing changes); prefs sync --relay carries a write between two sidecars")
    func commandLine() async throws {
        let primary = try await PostgresServer.start(label: "primary", settings: ["wal_level": "logical"])
        defer { primary.remove() }  // on a failure path; else awaited at the end
        let relay = try await PostgresServer.start(label: "relay")
        defer { relay.remove() }  // on a failure path; else awaited at the end
        let arguments = ["relay", "--primary", primary.url(), "--relay", relay.url()]
        for _ in 0..<2 {
            let result = try await Self.prefs(arguments)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("publication sqlitedefaults_"), "\(result.standardOutput)")
        }
        // A primary without logical replication is named as the cause.
        let plain = try await PostgresServer.start(label: "plain")
        defer { plain.remove() }  // on a failure path; else awaited at the end
        let refused = try await Self.prefs(["relay", "--primary", plain.url(), "--relay", relay.url()])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("wal_level"), "\(refused.standardError)")

        let directory = try TemporaryDirectory()
        let a = try SyncCommandTests.Sidecar(database: directory.path + "/a.sqlite",
                                             arguments: ["--postgres", primary.url(), "--relay", relay.url(), "--ready"])
        let b = try SyncCommandTests.Sidecar(database: directory.path + "/b.sqlite",
                                             arguments: ["--postgres", primary.url(), "--relay", relay.url(), "--ready"])
        #expect(await a.ready(), "\(a.errors.all)")
        #expect(await b.ready(), "\(b.errors.all)")
        let store = try DefaultsStore(path: directory.path + "/a.sqlite")
        try await store.set(.text("through the relay"), for: .raw("cli"))
        let other = try DefaultsStore(path: directory.path + "/b.sqlite")
        #expect(await waitUntil(timeout: .seconds(60)) { (try? other.entries().first { $0.key == "cli" }?.value) == .text("through the relay") })
        for sidecar in [a, b] {
            sidecar.process.send(SIGTERM)
            #expect(await sidecar.process.wait(timeout: .seconds(30))?.status == 0)
        }
        try store.close()
        try other.close()
        await plain.remove()
        await relay.remove()
        await primary.remove()
    }
}
#endif
