#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import MetricsTestKit
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// More machines than PostgreSQL has connection slots for: a machine that gets none is not in
/// step, and must say so soon, in PostgreSQL's own words, and again when it gets one — never
/// wait in silence while the client's pool retries (for up to a minute) behind its back.
///
/// Ten syncs in one test process share its event loops and task threads, in the slow tier beside
/// the other suites. How soon a machine spoke is read from the instant its log line was logged,
/// not from when the test body (itself waiting for a core on a loaded machine) noticed it: that
/// difference is what once made the suite run alone (10–42 s in the slow tier of the clean-clone
/// CI run of 2026-12-02, against about 1 s for the product itself). SyncCommandTests covers the
/// same with real `prefs sync` processes.
@Suite("Fleet with more machines than connection slots", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetSlotsTests {
    /// PostgreSQL's refusal when the slots left are the superuser's ("remaining connection
    /// slots are reserved for non-replication superuser connections"), or when none is left.
    static func isPostgresReason(_ line: String) -> Bool {
        line.contains("remaining connection slots are reserved") || line.contains("too many clients")
    }

    @Test("ten machines, five slots: every machine says within seconds whether it is in step, the ones without a slot in PostgreSQL's words; the gauge agrees; each says so again when a slot frees")
    func moreMachinesThanSlots() async throws {
        // 8 connections, 3 of them the superuser's: 5 for the fleet's role.
        let server = try await PostgresServer.start(maxConnections: 8)
        defer { server.remove() }  // on a failure path; else awaited at the end
        try await server.createUser("fleet", password: "secret")
        try await server.createDatabase("fleet", owner: "fleet")
        let url = server.url(user: "fleet", password: "secret", database: "fleet")
        let directory = try TemporaryDirectory()
        let dimensions = [("table", "defaults_fleet")]
        // The contract is 5 s; the limit allows a machine loaded by the whole slow tier (the
        // times are printed), and the wait for the body to notice is longer still.
        let limit: Duration = .seconds(20)
        let deadline: Duration = .seconds(120)

        var machines: [(machine: Machine, metrics: TestMetrics, started: ContinuousClock.Instant)] = []
        for index in 0..<10 {
            let metrics = TestMetrics()
            // Real time-outs and limits, as `prefs sync` has them; only retries are quicker.
            var timing = DefaultsPostgresSync.Timing()
            timing.firstRetryDelay = .milliseconds(50)
            timing.longestRetryDelay = .milliseconds(500)
            let machine = try Machine(path: directory.path + "/m\(index).sqlite", url: url, timing: timing,
                                      metricsFactory: metrics, diagnoses: true)
            machines.append((machine, metrics, .now))
        }
        func inStep(_ entry: (machine: Machine, metrics: TestMetrics, started: ContinuousClock.Instant)) -> Bool {
            entry.machine.sync.isConnected && entry.machine.log.all.contains { $0.contains("in step with PostgreSQL") }
        }
        func refused(_ entry: (machine: Machine, metrics: TestMetrics, started: ContinuousClock.Instant)) -> Bool {
            !entry.machine.sync.isConnected && entry.machine.log.all.contains(where: Self.isPostgresReason)
        }

        var spoke: [String] = []
        for entry in machines {
            let said = await waitUntil(timeout: deadline) { inStep(entry) || refused(entry) }
            #expect(said, "\(entry.machine.path) said nothing for \(deadline): \(entry.machine.log.all)")
            let name = entry.machine.path.split(separator: "/").last ?? ""
            // The first line that says where the machine stands: in step, or PostgreSQL's reason.
            let first = entry.machine.stampedLog.all.first {
                $0.line.contains("in step with PostgreSQL") || Self.isPostgresReason($0.line)
            }
            guard let first else { spoke.append("\(name): silent"); continue }
            let latency = first.instant - entry.started
            #expect(latency <= limit, "\(name) first spoke after \(latency): \(first.line)")
            spoke.append("\(name): \(latency) \(inStep(entry) ? "in step" : "refused")")
        }
        print("first word of each machine, since it started: \(spoke)")
        let connected = machines.filter(inStep)
        let waiting = machines.filter { !inStep($0) }
        #expect(connected.count <= 5 && connected.count >= 1, "\(spoke)")
        #expect(!waiting.isEmpty, "\(spoke)")
        for entry in machines {
            let gauge = try entry.metrics.expectGauge("sqlitedefaults_fleet_connected", dimensions).lastValue
            #expect(gauge == (entry.machine.sync.isConnected ? 1 : 0), "\(entry.machine.path)")
            #expect(!entry.machine.log.all.contains { $0.contains("ConnectionPool") || $0.contains("_Module") }, "\(entry.machine.log.all)")
            // One line for the spell, not one per retry.
            #expect(entry.machine.log.all.filter(Self.isPostgresReason).count <= 1, "\(entry.machine.log.all)")
        }

        // A write reaches the machines in step (the others catch up once they get a slot).
        let first = try #require(connected.first, "no machine got a slot: \(spoke)")
        try await first.machine.store.set(.integer(1), for: .raw("written"))
        for entry in connected {
            #expect(await waitUntil(timeout: .seconds(60)) { entry.machine["written"] == .integer(1) })
        }

        // Slots freed: every machine that waited gets one in turn (each leaves once it has
        // caught up, freeing its slot), says it is in step, and the gauge agrees.
        for entry in connected { #expect(await entry.machine.stop() == nil) }
        var remaining = waiting
        while !remaining.isEmpty {
            let found = await waitUntil(timeout: .seconds(120)) { remaining.contains(where: inStep) }
            #expect(found, "none of \(remaining.map(\.machine.path)) came in step: \(remaining.map(\.machine.log.all))")
            guard found, let index = remaining.firstIndex(where: inStep) else { break }
            let entry = remaining.remove(at: index)
            #expect(try entry.metrics.expectGauge("sqlitedefaults_fleet_connected", dimensions).lastValue == 1)
            #expect(await waitUntil(timeout: .seconds(60)) { entry.machine["written"] == .integer(1) })
            #expect(!entry.machine.log.all.contains { $0.contains("ConnectionPool") || $0.contains("_Module") }, "\(entry.machine.log.all)")
            #expect(await entry.machine.stop() == nil)
        }
        await server.remove()
    }
}
#endif
