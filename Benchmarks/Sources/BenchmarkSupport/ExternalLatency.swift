import CSQLiteBench
import Foundation
import SQLiteDefaults
import Synchronization

/// External-process write → observer callback latency.
///
/// This process opens a store on a fresh file and observes one key; `BenchWriter` (a second
/// process) sets it to 1…N, `interval` apart, printing `VALUE NANOSECONDS` (CLOCK_REALTIME)
/// right after each set returns. The latency of a write is the observer's CLOCK_REALTIME at
/// the start of its callback minus the writer's stamp.
///
/// Writes far apart (isolated) measure how fast one change is noticed; an interval of 0 (back
/// to back) measures a stream, where commits land while the monitor is still reading the last
/// ones and queue behind it.
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

    /// Who hears the writes.
    public enum Reader: String, Sendable {
        /// A `DefaultsStore` observer (the library's monitor thread).
        case defaults
        /// The floor: a thread of this benchmark blocked on an inotify watch of the directory,
        /// which on every event spins on `PRAGMA data_version` of a raw SQLite connection (up to
        /// 2 ms) and reads the row when it moves: the least any inotify-based reader can do.
        case rawInotify = "raw inotify + SQLite reader"
    }

    public static func measure(writes: Int, intervalMicroseconds: Int = 5_000, warmup: Int = 10,
                               writer: Writer = .defaults, reader: Reader = .defaults) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: writerPath) else {
            throw BenchmarkFailure("BenchWriter not found at \(writerPath): build it (swift build -c release --product BenchWriter) or set SQLITEDEFAULTS_BENCH_WRITER")
        }
        let fixture = try StoreFixture("external")
        let key = DefaultsKey<Int>("bench.external", default: 0)
        let arrivals = Mutex<[Int64]>(Array(repeating: 0, count: writes + 1))
        let record: @Sendable (Int) -> Void = { value in
            let now = Clock.realtimeNanoseconds()
            arrivals.withLock { if value > 0, value < $0.count, $0[value] == 0 { $0[value] = now } }
        }
        // Only `fixture` holds the store, so it closes before its directory is removed.
        var token: DefaultsObservation?
        var floorReader: RawInotifyReader?
        switch reader {
        case .defaults:
            token = fixture.store.observe(key) { record($0.newValue) }
        case .rawInotify:
            try fixture.store.set(0, for: key)  // the row exists; the raw reader only reads it
            floorReader = try RawInotifyReader(path: fixture.path, key: key.name, arrived: record)
        }
        defer {
            token?.cancel()
            floorReader?.stop()
        }

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

/// The floor reader of ``ExternalLatency/Reader/rawInotify``: its own inotify instance, its own
/// raw SQLite connection, its own thread.
final class RawInotifyReader: @unchecked Sendable {
    // Sendable proof: `raw` and the descriptors are used only by the reader thread after init
    // (init finishes before the thread starts); `stop()` only sets the atomic and joins.
    private let raw: RawSQLite
    private let inotify: Int32
    private let key: String
    private let arrived: @Sendable (Int) -> Void
    private let stopped = Atomic<Bool>(false)
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, key: String, arrived: @escaping @Sendable (Int) -> Void) throws {
        raw = try RawSQLite(path: path, schema: .existing)
        inotify = inotify_init1(0)
        guard inotify >= 0 else { throw BenchmarkFailure("inotify_init1 failed: \(errno)") }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        // IN_MODIFY on a directory watch reports writes to the files in it: the -wal's frames.
        guard inotify_add_watch(inotify, directory, UInt32(IN_MODIFY)) >= 0 else {
            close(inotify)
            throw BenchmarkFailure("inotify_add_watch(\(directory)) failed: \(errno)")
        }
        self.key = key
        self.arrived = arrived
        let thread = Thread { [self] in run() }
        self.thread = thread
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        finished.wait()
        close(inotify)
    }

    private func run() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var version = (try? raw.dataVersion()) ?? 0
        while !stopped.load(ordering: .acquiring) {
            var descriptor = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            _ = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            // The first write of a commit wakes us before the commit is published: spin.
            let deadline = Clock.nanoseconds() + 2_000_000
            while Clock.nanoseconds() < deadline {
                guard let now = try? raw.dataVersion() else { break }
                if now != version {
                    version = now
                    if let value = try? raw.integer(for: key) { arrived(value) }
                    break
                }
            }
        }
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
