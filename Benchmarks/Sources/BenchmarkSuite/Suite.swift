import Benchmark
import BenchmarkSupport
import Foundation

/// Registers `Workload`s as package-benchmark benchmarks, so the benchmark targets and the
/// ratio table (`compare.sh`) measure exactly the same code.
public enum Suite {
    /// Time, CPU and allocations for every benchmark.
    public static let metrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .mallocCountTotal, .throughput]

    /// The default configuration: a few seconds per benchmark, or a handful of iterations
    /// when `SQLITEDEFAULTS_BENCH_SMOKE=1` (CI's smoke run, which only proves they all run).
    public static func configure() {
        if RunMode.isSmoke {
            Benchmark.defaultConfiguration = .init(metrics: metrics, warmupIterations: 0,
                                                   maxDuration: .milliseconds(200), maxIterations: 3)
        } else {
            Benchmark.defaultConfiguration = .init(metrics: metrics, warmupIterations: 3,
                                                   maxDuration: .seconds(3), maxIterations: 20_000)
        }
    }

    /// Registers one workload, created before the benchmark's first iteration and released
    /// after its last. One benchmark iteration is `scaling` operations; a workload with an
    /// untimed per-operation preparation runs one operation per iteration, timed alone.
    public static func add(_ name: String, scaling: BenchmarkScalingFactor = .one, maxIterations: Int? = nil,
                           _ make: @escaping () throws -> Workload) {
        let slot = Slot()
        var configuration = Benchmark.Configuration(scalingFactor: scaling)
        if let maxIterations, !RunMode.isSmoke { configuration.maxIterations = maxIterations }
        configuration.setup = { slot.workload = try make() }
        configuration.teardown = { slot.workload = nil }
        Benchmark(name, configuration: configuration) { benchmark in
            guard let workload = slot.workload else { return benchmark.error("no workload") }
            do {
                if let prepare = workload.prepareEach {
                    try prepare()  // before the explicit start: not measured
                    benchmark.startMeasurement()
                    try workload.run(1)
                    benchmark.stopMeasurement()
                } else {
                    try workload.run(benchmark.scaledIterations.count)
                }
            } catch {
                benchmark.error("\(name): \(error)")
            }
        }
    }
}

/// Holds a benchmark's workload between its setup and teardown.
final class Slot: @unchecked Sendable {
    // Sendable proof: package-benchmark runs one benchmark's setup, iterations and teardown
    // one after another, never concurrently.
    var workload: Workload?
}
