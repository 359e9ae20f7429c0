import DefaultsTestSupport
import Foundation
import MetricsTestKit
import SQLiteDefaults
import Testing
import TestScheduling

/// The engine's swift-metrics (DESIGN "The fleet, across a real network": commits, external
/// changes detected, the monitor's look latency), through a test backend.
@Suite("Engine metrics", .offThePool)
struct EngineMetricsTests {
    @Test("commits count committed writes; a change by another connection counts once and times a look")
    func commitsExternalChangesAndLooks() async throws {
        let directory = try TemporaryDirectory()
        let metrics = TestMetrics()
        var configuration = DefaultsStore.Configuration()
        configuration.metricsFactory = metrics
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        let key = DefaultsKey<Int>("count", default: 0)
        let heard = Collected<Int>()
        let token = store.observe(key) { heard.append($0.newValue) }

        try await store.set(1, for: key)
        try await store.set(2, for: key)
        try await store.transaction { transaction in
            transaction[key] = 3
            transaction[DefaultsKey<String>("name", default: "")] = "a"
        }
        try await store.transaction { _ in }  // wrote nothing: not a commit worth counting
        let commits = try metrics.expectCounter("sqlitedefaults_commits_total")
        #expect(commits.totalValue == 3)

        // Another store on the file is another connection: its write is an external change here.
        var quiet = DefaultsStore.Configuration()
        quiet.externalChangeDetection = .off
        let other = try DefaultsStore(path: directory.database, configuration: quiet)
        try await other.set(4, for: key)
        #expect(await heard.waitAsync { $0.contains(4) }, "the observer heard \(heard.all)")
        let external = try metrics.expectCounter("sqlitedefaults_external_changes_total")
        #expect(external.totalValue == 1)
        let looks = try metrics.expectTimer("sqlitedefaults_monitor_look_seconds")
        #expect(!looks.values.isEmpty && looks.values.allSatisfy { $0 >= 0 })
        withExtendedLifetime(token) {}
    }
}
