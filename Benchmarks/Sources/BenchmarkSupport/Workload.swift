import Foundation
import Synchronization

/// One measured operation, ready to run: its fixtures (stores, files, references) live as
/// long as the workload.
///
/// `run(n)` performs the operation `n` times back to back; the harness times the call. A
/// workload whose every operation needs an untimed preparation (an external write to wait
/// for before a timed `get`) sets `prepareEach`, and is run one operation at a time.
public final class Workload: @unchecked Sendable {
    // Sendable proof: a workload is created, run and dropped by one thread at a time (the
    // benchmark runner's or the ratio harness's); nothing in it is touched concurrently.
    public let name: String
    public let run: (Int) throws -> Void
    public let prepareEach: (() throws -> Void)?
    /// Something worth reporting about the run (e.g. how often a wait took long), if any.
    public let note: (() -> String)?
    /// Called when the workload is finished (closes stores, removes files).
    private let cleanup: () -> Void
    private var resources: [AnyObject]

    public init(_ name: String, keep resources: [AnyObject] = [], prepareEach: (() throws -> Void)? = nil,
                note: (() -> String)? = nil, cleanup: @escaping () -> Void = {}, run: @escaping (Int) throws -> Void) {
        self.name = name
        self.note = note
        self.resources = resources
        self.prepareEach = prepareEach
        self.cleanup = cleanup
        self.run = run
    }

    deinit { cleanup() }

    /// Nanoseconds for `count` operations (excluding each operation's preparation).
    /// `begin` and `end` run right outside every timed region (to count allocations in it).
    public func measure(_ count: Int, begin: () -> Void = {}, end: () -> Void = {}) throws -> UInt64 {
        guard let prepareEach else {
            begin()
            let start = Clock.nanoseconds()
            try run(count)
            let elapsed = Clock.nanoseconds() - start
            end()
            return elapsed
        }
        var total: UInt64 = 0
        for _ in 0..<count {
            try prepareEach()
            begin()
            let start = Clock.nanoseconds()
            try run(1)
            total += Clock.nanoseconds() - start
            end()
        }
        return total
    }
}

public enum Clock {
    /// CLOCK_MONOTONIC in nanoseconds.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// CLOCK_REALTIME in nanoseconds: comparable across processes.
    public static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

/// Keeps a computed value alive so the optimizer cannot drop the work that produced it.
@inline(never)
public func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A fresh directory under the system temporary directory, removed with everything in it
/// when this object goes away. Each fixture gets its own, so one store's file watch never
/// sees another fixture's writes.
public final class TemporaryDirectory: @unchecked Sendable {
    // Sendable proof: `path` is immutable; deinit runs once.
    public let path: String

    public init(_ label: String = "bench") throws {
        let base = (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        var template = Array("\(base)/sqlitedefaults-\(label)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchmarkFailure("cannot create a temporary directory in \(base)")
        }
        path = String(cString: made)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Whether to run as a smoke test (tiny counts, for CI): `SQLITEDEFAULTS_BENCH_SMOKE=1`.
public enum RunMode {
    public static var isSmoke: Bool {
        let value = ProcessInfo.processInfo.environment["SQLITEDEFAULTS_BENCH_SMOKE"] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// The "large table" size of the scale benchmarks: 1,000,000 (20,000 in smoke mode).
    public static var largeTable: Int { isSmoke ? 20_000 : 1_000_000 }
}

/// A counter shared between an observer callback and the thread that waits for it.
public final class Signal: Sendable {
    private let state = Mutex<(count: Int, last: Int)>((0, 0))
    private let condition = DispatchSemaphore(value: 0)

    public init() {}

    public func fire(_ value: Int = 0) {
        state.withLock { $0.count += 1; $0.last = value }
        condition.signal()
    }

    /// Waits up to `seconds` for one `fire`; false on timeout.
    @discardableResult
    public func wait(seconds: Double = 5) -> Bool {
        condition.wait(timeout: .now() + seconds) == .success
    }

    /// Waits until a fire carried `value` (older fires are skipped).
    @discardableResult
    public func wait(for value: Int, seconds: Double = 5) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while state.withLock({ $0.last }) != value {
            if condition.wait(timeout: deadline) == .timedOut { return false }
        }
        return true
    }

    public var count: Int { state.withLock { $0.count } }
}
