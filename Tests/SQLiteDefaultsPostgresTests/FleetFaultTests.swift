#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
import Testing
import TestScheduling

/// The fleet under real network faults: three `prefs sync` sidecars, each in a network
/// namespace of its own (veth, a bridge, PostgreSQL on the host side), packets dropped by
/// nftables inside a namespace. Every scenario writes from every machine and then asserts
/// convergence: every file equals PostgreSQL's table (its commit order decides each key),
/// and every acknowledged local write stands in it (none lost). Figures are printed for the
/// fleet's documentation.
@Suite("Fleet under network faults (namespaces)", .offThePool, .slowTier, .requiresPostgreSQL, .serialized,
       .enabled("needs root (ip netns) and the ip and nft commands: apt-get install iproute2 nftables") {
           NetworkLab.unavailableReason() == nil
       })
struct FleetFaultTests {
    static let machines = 3

    /// A fleet for one scenario: sidecars started and ready; stopped and removed after.
    func withFleet(_ body: (FaultFleet) async throws -> Void) async throws {
        try await withServer { server in
            // Built on a thread of its own: the lab's `ip` commands are waited for synchronously.
            let fleet = try await onOwnThread { try FaultFleet(machines: Self.machines, server: server) }
            do {
                for index in 0..<fleet.count { #expect(try await fleet.start(index)) }
                try await body(fleet)
            } catch {
                await fleet.stop()
                throw error
            }
            await fleet.stop()
        }
    }

    static func report(_ scenario: String, _ seconds: Double?) {
        print("fleet fault harness: \(scenario): converged in \(seconds.map { String(format: "%.2f s", $0) } ?? "never")")
    }

    @Test("5 % packet loss on every machine under steady writes from all: converges, nothing lost")
    func loss() async throws {
        try await withFleet { fleet in
            try await fleet.lab.setAll(.loss(5))
            _ = try await fleet.writeSteadily(for: .seconds(6))
            let seconds = await fleet.convergence()
            Self.report("5 % loss, writes stopped", seconds)
            #expect(seconds != nil)
        }
    }

    @Test("a long path (50 ms ± 15 ms each way) with jitter: converges, nothing lost")
    func longDelay() async throws {
        try await withFleet { fleet in
            fleet.lab.forwarder.setDelay(.milliseconds(50), jitter: .milliseconds(15))
            _ = try await fleet.writeSteadily(for: .seconds(5))
            let seconds = await fleet.convergence()
            Self.report("50±15 ms each way, writes stopped", seconds)
            #expect(seconds != nil)
        }
    }

    @Test("one machine cut off for 30 s while every machine writes: converges within a second of the heal")
    func partitionOne() async throws {
        try await withFleet { fleet in
            try await fleet.lab.set(.partition, on: 2)
            let sequence = try await fleet.writeSteadily(for: .seconds(30), every: .milliseconds(100))
            try await fleet.lab.set(.none, on: 2)
            let seconds = await fleet.convergence()
            Self.report("one machine cut off 30 s, after the heal", seconds)
            #expect(seconds != nil)
            #expect(sequence > 100)
        }
    }

    @Test("PostgreSQL cut off from everyone while all write: converges after it returns")
    func partitionAll() async throws {
        try await withFleet { fleet in
            try await fleet.lab.setAll(.partition)
            _ = try await fleet.writeSteadily(for: .seconds(10), every: .milliseconds(100))
            try await fleet.lab.setAll(.none)
            let seconds = await fleet.convergence()
            Self.report("PostgreSQL cut off from all 10 s, after it returns", seconds)
            #expect(seconds != nil)
        }
    }

    @Test("a link flapping every second under writes: converges, nothing lost")
    func flapping() async throws {
        try await withFleet { fleet in
            var sequence = 0
            for turn in 0..<10 {
                try await fleet.lab.set(turn.isMultiple(of: 2) ? .partition : .none, on: 0)
                sequence = try await fleet.writeSteadily(for: .seconds(1), every: .milliseconds(100), startingAt: sequence)
            }
            try await fleet.lab.set(.none, on: 0)
            let seconds = await fleet.convergence()
            Self.report("link flapping every 1 s for 10 s, after the last flap", seconds)
            #expect(seconds != nil)
        }
    }

    @Test("a sync SIGKILLed during a partition loses nothing: restarted after the heal, it pushes every write")
    func killedDuringPartition() async throws {
        try await withFleet { fleet in
            try await fleet.lab.set(.partition, on: 1)
            var sequence = try await fleet.writeSteadily(for: .seconds(3), every: .milliseconds(100))
            await fleet.kill(1)
            sequence = try await fleet.writeSteadily(for: .seconds(2), every: .milliseconds(100), startingAt: sequence)
            try await fleet.lab.set(.none, on: 1)
            #expect(try await fleet.start(1))
            let seconds = await fleet.convergence()
            Self.report("sync SIGKILLed during a partition, after its restart", seconds)
            #expect(seconds != nil)
        }
    }
}
#endif
