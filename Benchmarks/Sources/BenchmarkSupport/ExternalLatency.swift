import Foundation
import SQLiteDefaults
import Synchronization

/// External-process write → observer callback latency.
///
/// This process opens a store on a fresh file and observes one key; `BenchWriter` (a second
/// process) sets it to 1…N, `interval` apart, printing `VALUE NANOSECONDS` (CLOCK_REALTIME)
/// right after each set returns. The latency of a write is the observer's CLOCK_REALTIME at
/// the start of its callback minus the writer's stamp.
public enum ExternalLatency {
    public enum Writer: String, Sendable {
        /// Another process using SQLiteDefaults (default configuration).
        case defaults
        /// Another process writing with plain SQL (raw SQLite C API), like the sqlite3 shell.
        case sql
    }

    public struct Result: Sendable {
        /// Latencies in microseconds, one per write that reached the observer (warm-up excluded).
        public var microseconds: [Double]
        /// Writes after which the observer never saw that value or a newer one.
        public var missing: Int
        /// Writes whose own value was never delivered, because a newer one was (the observer
        /// heard of them late, with the newer value: their latency runs until then).
        public var coalesced: Int
        public var median: Double { Stats.percentile(microseconds, 50) }
        public var p99: Double { Stats.percentile(microseconds, 99) }
    }

    /// The `BenchWriter` executable: `$SQLITEDEFAULTS_BENCH_WRITER`, or next to this process's
    /// own executable (SwiftPM puts every product of the package in one directory).
    public static var writerPath: String {
        if let path = ProcessInfo.processInfo.environment["SQLITEDEFAULTS_BENCH_WRITER"], !path.isEmpty { return path }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("BenchWriter").path
    }

    public static func measure(writes: Int, intervalMicroseconds: Int = 5_000, warmup: Int = 10,
                               writer: Writer = .defaults) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: writerPath) else {
            throw BenchmarkFailure("BenchWriter not found at \(writerPath): build it (swift build -c release --product BenchWriter) or set SQLITEDEFAULTS_BENCH_WRITER")
        }
        let fixture = try StoreFixture("external")
        let key = DefaultsKey<Int>("bench.external", default: 0)
        let arrivals = Mutex<[Int64]>(Array(repeating: 0, count: writes + 1))
        // Only `fixture` holds the store, so it closes before its directory is removed.
        let token = fixture.store.observe(key) { change in
            let now = Clock.realtimeNanoseconds()
            let value = change.newValue
            arrivals.withLock { if value > 0, value < $0.count, $0[value] == 0 { $0[value] = now } }
        }
        defer { token.cancel() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: writerPath)
        process.arguments = [writer == .defaults ? "write-timed" : "write-timed-sql", fixture.path, key.name,
                             String(writes), String(intervalMicroseconds)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkFailure("BenchWriter exited with \(process.terminationStatus)") }

        var stamps = Array(repeating: Int64(0), count: writes + 1)
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let value = Int(fields[0]), let stamp = Int64(fields[1]),
                  value > 0, value <= writes else { continue }
            stamps[value] = stamp
        }
        // The last callbacks may still be on their way.
        let deadline = Clock.nanoseconds() + 2_000_000_000
        while arrivals.withLock({ $0[writes] }) == 0, Clock.nanoseconds() < deadline { usleep(1_000) }

        // A write's latency: until the observer saw its value or a newer one (several writes
        // that land before the monitor looks are one notification with the newest value).
        let arrived = arrivals.withLock { $0 }
        var firstSeen = Array(repeating: Int64(0), count: writes + 2)
        for value in stride(from: writes, through: 1, by: -1) {
            let later = firstSeen[value + 1]
            firstSeen[value] = arrived[value] == 0 ? later : (later == 0 ? arrived[value] : min(arrived[value], later))
        }
        var result = Result(microseconds: [], missing: 0, coalesced: 0)
        for value in 1...writes where value > warmup {
            guard stamps[value] != 0 else { continue }
            if arrived[value] == 0 { result.coalesced += 1 }
            if firstSeen[value] == 0 { result.missing += 1; continue }
            result.microseconds.append(Double(firstSeen[value] - stamps[value]) / 1_000)
        }
        return result
    }
}

/// CPU used by a file store doing nothing: one store with one observer, idle for `seconds`.
public enum IdleCPU {
    public struct Result: Sendable {
        public var cpuMilliseconds: Double
        public var voluntarySwitches: Int
        public var seconds: Double
    }

    public static func measure(seconds: Double) throws -> Result {
        let fixture = try StoreFixture("idle")
        let token = fixture.store.observe(BenchKeys.int) { _ in }
        try fixture.store.set(1, for: BenchKeys.int)
        usleep(200_000)  // let the monitor settle after the write
        var before = rusage(), after = rusage()
        getrusage(RUSAGE_SELF.rawValue, &before)
        usleep(UInt32(seconds * 1_000_000))
        getrusage(RUSAGE_SELF.rawValue, &after)
        withExtendedLifetime(token) {}
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000 + Double(time.tv_usec) / 1_000 }
        let cpu = milliseconds(after.ru_utime) + milliseconds(after.ru_stime)
            - milliseconds(before.ru_utime) - milliseconds(before.ru_stime)
        return Result(cpuMilliseconds: cpu, voluntarySwitches: after.ru_nvcsw - before.ru_nvcsw, seconds: seconds)
    }
}

public enum Stats {
    public static func median(_ values: [Double]) -> Double { percentile(values, 50) }

    /// Nearest-rank percentile; NaN for no values.
    public static func percentile(_ values: [Double], _ percent: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
