import Benchmark
import BenchmarkSuite
import BenchmarkSupport
import Synchronization

// get and set with 1,000 vs 1,000,000 keys in the table (20,000 in a smoke run): a random
// key of the table (every key cached), and one key again and again. And 10,000 open stores in
// one process (200 in a smoke run): threads, descriptors, memory per idle store, idle CPU.
let benchmarks: @Sendable () -> Void = {
    Suite.configure()

    for rows in [1_000, RunMode.largeTable] {
        Suite.add("get random key · \(rows) keys", scaling: .kilo) { Workloads.scaleGetRandom(try Tables.shared(rows)) }
        Suite.add("get random key · Mutex<Dictionary> · \(rows) keys", scaling: .kilo) { Workloads.scaleDictionaryGetRandom(rows: rows) }
        Suite.add("get one key · \(rows) keys", scaling: .kilo) { Workloads.scaleGetHot(try Tables.shared(rows)) }
        // Sets use tables of their own (a set drops the decoded value that gets rely on).
        Suite.add("set random key · \(rows) keys") { Workloads.scaleSetRandom(try Tables.shared(rows, written: true)) }
        Suite.add("set random key · raw SQLite · \(rows) keys") { try Workloads.scaleRawSetRandom(rows: rows) }
        Suite.add("set one key · \(rows) keys") { Workloads.scaleSetHot(try Tables.shared(rows, written: true)) }
    }

    // 10,000 stores on distinct files, each with one observer, idle: one run is the result.
    let stores = ManyStores.defaultCount
    let idleSeconds = RunMode.isSmoke ? 1.0 : 10.0
    let metrics: [BenchmarkMetric] = [
        .custom("threads (process)", polarity: .prefersSmaller, useScalingFactor: false),
        .custom("threads added by the stores", polarity: .prefersSmaller, useScalingFactor: false),
        .custom("descriptors per store (×100)", polarity: .prefersSmaller, useScalingFactor: false),
        .custom("inotify instances", polarity: .prefersSmaller, useScalingFactor: false),
        .custom("resident bytes per store", polarity: .prefersSmaller, useScalingFactor: false),
        .custom("idle CPU (µs)", polarity: .prefersSmaller, useScalingFactor: false),
        .custom("open + observe per store (µs)", polarity: .prefersSmaller, useScalingFactor: false),
    ]
    Benchmark("\(stores) open stores, idle \(Int(idleSeconds)) s",
              configuration: .init(metrics: metrics, warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 1)) { benchmark in
        do {
            let result = try ManyStores.measure(count: stores, idleSeconds: idleSeconds)
            let values = [result.threads, result.threadsAdded, Int((result.descriptorsPerStore * 100).rounded()), result.inotifyInstances,
                          Int(result.residentBytesPerStore.rounded()), Int((result.idleCPUMilliseconds * 1_000).rounded()),
                          Int(result.openMicroseconds.rounded())]
            for (metric, value) in zip(metrics, values) { benchmark.measurement(metric, value) }
        } catch {
            benchmark.error("\(error)")
        }
    }
}

/// Each table is filled once per process and shared by the benchmarks that read it (or by
/// those that write it).
enum Tables {
    private static let tables = Mutex<[String: Workloads.LargeTable]>([:])

    static func shared(_ rows: Int, written: Bool = false) throws -> Workloads.LargeTable {
        let name = "\(rows)\(written ? "w" : "r")"
        if let table = tables.withLock({ $0[name] }) { return table }
        let table = try Workloads.LargeTable(rows: rows)
        tables.withLock { $0[name] = table }
        return table
    }
}
