import Benchmark
import BenchmarkSuite
import BenchmarkSupport
import Foundation

// Delivery: a local write to its observer's callback (against raw SQLite's update hook
// calling a callback inline) and to an `updates` consumer task; a write from another process
// to the callback, isolated and back to back (median, p99); `set` with 10,000 observers on
// other keys; memory per observer; CPU of an idle store.
let benchmarks: @Sendable () -> Void = {
    Suite.configure()

    Suite.add("set → observer callback · SQLiteDefaults") { try Workloads.localNotify(.defaults) }
    Suite.add("set → update hook callback · raw SQLite") { try Workloads.localNotify(.raw) }
    Suite.add("set → updates() consumer · SQLiteDefaults") { try Workloads.updatesDelivery() }

    let observers = RunMode.isSmoke ? 1_000 : 10_000
    Suite.add("set Int · 0 observers on other keys") { try Workloads.setWithObservers(0) }
    Suite.add("set Int · \(observers) observers on other keys") { try Workloads.setWithObservers(observers) }

    // The latency of each write from a second process (BenchWriter) to the observer's
    // callback, in microseconds: its percentiles are the result (one iteration = the run).
    // Isolated writes (5 ms apart), then a stream of writes back to back (no pause).
    let runs: [(title: String, writes: Int, interval: Int)] = [
        ("external write", RunMode.isSmoke ? 30 : 1_000, RunMode.isSmoke ? 2_000 : 5_000),
        ("external writes back to back", RunMode.isSmoke ? 30 : 2_000, 0),
    ]
    for run in runs {
        for writer in [ExternalLatency.Writer.defaults, .sql] {
            let metric = BenchmarkMetric.custom("external write → callback (µs)", polarity: .prefersSmaller, useScalingFactor: false)
            Benchmark("\(run.title) (\(writer == .defaults ? "SQLiteDefaults" : "plain SQL") process) → callback latency",
                      configuration: .init(metrics: [metric], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 1)) { benchmark in
                do {
                    let result = try ExternalLatency.measure(writes: run.writes, intervalMicroseconds: run.interval,
                                                             warmup: RunMode.isSmoke ? 3 : 20, writer: writer)
                    for sample in result.microseconds { benchmark.measurement(metric, Int(sample.rounded())) }
                    if result.missing > 0 || result.coalesced > 0 {
                        print("\(run.title) latency: \(result.coalesced) writes reached the observer only with a newer value, \(result.missing) never")
                    }
                } catch {
                    benchmark.error("\(error)")
                }
            }
        }
    }

    // Heap bytes still in use per observer of a distinct key (token, registry entry, cache entry).
    let bytesMetric = BenchmarkMetric.custom("heap bytes per observer", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("memory per observer (\(observers) observers)",
              configuration: .init(metrics: [bytesMetric], warmupIterations: 0, maxIterations: 1)) { benchmark in
        do {
            benchmark.measurement(bytesMetric, Int(try Workloads.memoryPerObserver(count: observers).rounded()))
        } catch {
            benchmark.error("\(error)")
        }
    }

    // CPU used by a file store with one observer that nobody writes to.
    let seconds = RunMode.isSmoke ? 1.0 : 10.0
    let cpuMetric = BenchmarkMetric.custom("idle CPU (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("idle store with an observer, \(Int(seconds)) s",
              configuration: .init(metrics: [cpuMetric], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 1)) { benchmark in
        do {
            benchmark.measurement(cpuMetric, Int(try IdleCPU.measure(seconds: seconds).cpuMilliseconds * 1_000))
        } catch {
            benchmark.error("\(error)")
        }
    }
}
