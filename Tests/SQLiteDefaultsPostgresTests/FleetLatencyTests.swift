#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import MetricsTestKit
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// A write on A reaching B through a long path: both machines reach PostgreSQL through a proxy
/// that delays every byte 50 ms ± 15 ms each way (a round trip of about 100 ms). The floor is
/// one and a half round trips (the push, then the notification); the contract allows four
/// (4 × 50 + 10 = 210 ms median).
///
/// These tests check that every write arrives, under both protocols and through the delay;
/// they print the medians but assert no duration (a loaded machine would fail a duration, not
/// the code). The measured figures are Benchmarks/fleet.sh's (FleetRatios).
@Suite("Fleet across a long path", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetLatencyTests {
    static let key = DefaultsKey<Int>("latency", default: -1)

    /// A→B times of `samples` isolated writes, each awaited on B's observer, in milliseconds.
    static func measure(from a: Machine, to b: Machine, samples: Int) async throws -> [Double] {
        let seen = Collected<Int>()
        let token = b.store.observe(key) { seen.append($0.newValue) }
        defer { token.cancel() }
        var times: [Double] = []
        for sample in 1...samples {
            let value = Int.random(in: 0..<1_000_000) * 1_000 + sample
            let start = ContinuousClock.now
            try await a.store.set(value, for: key)
            guard await seen.waitAsync(timeout: .seconds(30), until: { $0.contains(value) }) else {
                Issue.record("write \(sample) never reached B")
                return times
            }
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15)
            // Pacing, not a proof of absence: a quiet spell between writes, so each is pushed at
            // once (isolated, as measured).
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...60)))
        }
        return times
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    @Test("through 50 ms ± 15 ms each way, every write reaches B (the median is printed)")
    func longPath() async throws {
        try await withServer { server in
            let proxy = try DelayingProxy(to: server.port, delay: .milliseconds(50), jitter: .milliseconds(15))
            defer { proxy.stop() }
            let url = "postgres://postgres@127.0.0.1:\(proxy.port)/postgres?sslmode=disable"
            let directory = try TemporaryDirectory()
            let a = try Machine(path: directory.path + "/a.sqlite", url: url)
            let b = try Machine(path: directory.path + "/b.sqlite", url: url)
            #expect(await a.connected(), "A's log: \(a.log.all)")
            #expect(await b.connected(), "B's log: \(b.log.all)")
            _ = try await Self.measure(from: a, to: b, samples: 3)   // warm-up
            let times = try await Self.measure(from: a, to: b, samples: 25)
            let median = Self.median(times)
            print("fleet latency through 50±15 ms each way: median \(String(format: "%.1f", median)) ms, " +
                  "min \(String(format: "%.1f", times.min() ?? .nan)) ms, max \(String(format: "%.1f", times.max() ?? .nan)) ms, n=\(times.count)")
            #expect(times.count == 25)
            await a.stop()
            await b.stop()
            withExtendedLifetime(directory) {}
        }
    }

    /// The protocol before this edition: four round trips per push, a fetch after every notification.
    static let fourRoundTrips: DefaultsPostgresSync.Timing = {
        var timing = DefaultsPostgresSync.Timing.test
        timing.pushesInOneRoundTrip = false
        timing.appliesCarriedRows = false
        return timing
    }()

    /// A→B medians of the protocol now and of the one before, measured in turns on one server
    /// through one proxy (`delay` each way), so both meet the same machine load.
    static func compare(delay: Duration, jitter: Duration, samples: Int, turns: Int) async throws -> (now: [Double], before: [Double]) {
        try await withServer { server in
            let proxy = try DelayingProxy(to: server.port, delay: delay, jitter: jitter)
            defer { proxy.stop() }
            let url = "postgres://postgres@127.0.0.1:\(proxy.port)/postgres?sslmode=disable"
            let directory = try TemporaryDirectory()
            let a = try Machine(path: directory.path + "/a.sqlite", url: url)
            let b = try Machine(path: directory.path + "/b.sqlite", url: url)
            let oldA = try Machine(path: directory.path + "/old-a.sqlite", url: url, table: "fleet_before", timing: fourRoundTrips)
            let oldB = try Machine(path: directory.path + "/old-b.sqlite", url: url, table: "fleet_before", timing: fourRoundTrips)
            for machine in [a, b, oldA, oldB] { #expect(await machine.connected()) }
            _ = try await measure(from: a, to: b, samples: 3)
            _ = try await measure(from: oldA, to: oldB, samples: 3)
            var now: [Double] = [], before: [Double] = []
            for _ in 0..<turns {
                now += try await measure(from: a, to: b, samples: samples)
                before += try await measure(from: oldA, to: oldB, samples: samples)
            }
            for machine in [a, b, oldA, oldB] { await machine.stop() }
            withExtendedLifetime(directory) {}
            return (now, before)
        }
    }

    static func describe(_ values: [Double]) -> String {
        "median \(String(format: "%.2f", median(values))) ms (n=\(values.count))"
    }

    @Test("on loopback, both protocols carry every write (figures printed: now, and four round trips + a fetch)")
    func loopback() async throws {
        let (now, before) = try await Self.compare(delay: .zero, jitter: .zero, samples: 20, turns: 3)
        print("fleet latency on loopback: now \(Self.describe(now)); four round trips + fetch \(Self.describe(before))")
        #expect(now.count == 60 && before.count == 60)
    }

    @Test("through 50 ms ± 15 ms each way, both protocols carry every write (figures printed: now, and four round trips + a fetch)")
    func longPathBefore() async throws {
        let (now, before) = try await Self.compare(delay: .milliseconds(50), jitter: .milliseconds(15), samples: 10, turns: 2)
        print("fleet latency through 50±15 ms each way: now \(Self.describe(now)); four round trips + fetch \(Self.describe(before))")
        #expect(now.count == 20 && before.count == 20)
    }

    @Test("the sync reports pushes, applied rows, connection state, retries and the apply lag")
    func metrics() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let metricsA = TestMetrics(), metricsB = TestMetrics()
            let a = try Machine(path: directory.path + "/a.sqlite", url: server.url(), metricsFactory: metricsA)
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url(), metricsFactory: metricsB)
            #expect(await a.connected())
            #expect(await b.connected())
            let dimensions = [("table", "defaults_fleet")]
            #expect(try metricsA.expectGauge("sqlitedefaults_fleet_connected", dimensions).lastValue == 1)
            for value in 1...5 {
                try await a.store.set(value, for: Self.key)
                #expect(await waitUntil(timeout: .seconds(60)) { b.store[Self.key] == value })
            }
            // Counted once the push's answer is back (a) and the apply returned (b): the value can
            // be in b's file a moment before either count, so the counts are waited for.
            #expect(await waitUntil(timeout: .seconds(60)) {
                metricsA.counterTotal(label: "sqlitedefaults_fleet_pushes_total", dimensions: dimensions) >= 5
                    && metricsA.counterTotal(label: "sqlitedefaults_fleet_pushed_rows_total", dimensions: dimensions) >= 5
                    && metricsB.counterTotal(label: "sqlitedefaults_fleet_applied_rows_total", dimensions: dimensions) >= 5
            })
            #expect(metricsB.counterTotal(label: "sqlitedefaults_fleet_pushes_total", dimensions: dimensions) == 0)
            let lag = try metricsB.expectTimer("sqlitedefaults_fleet_apply_lag_seconds", dimensions)
            #expect(lag.values.count >= 5)
            // Same machine, same clock: a lag under a minute, and not negative.
            #expect(lag.values.allSatisfy { $0 >= 0 && $0 < 60_000_000_000 })

            try await server.stopServer()
            #expect(await waitUntil(timeout: .seconds(60)) { (try? metricsA.expectGauge("sqlitedefaults_fleet_connected", dimensions).lastValue) == 0 })
            #expect(await waitUntil(timeout: .seconds(60)) { metricsA.counterTotal(label: "sqlitedefaults_fleet_retries_total", dimensions: dimensions) > 0 })
            try await server.startServer()
            #expect(await waitUntil(timeout: .seconds(60)) { (try? metricsA.expectGauge("sqlitedefaults_fleet_connected", dimensions).lastValue) == 1 })
            await a.stop()
            await b.stop()
            withExtendedLifetime(directory) {}
        }
    }
}
#endif
