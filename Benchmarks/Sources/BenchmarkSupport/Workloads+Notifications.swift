import CSQLiteBench
import Foundation
import SQLiteDefaults
import Synchronization

extension Workloads {
    // MARK: local write → observer callback

    /// A `set` of an observed key, timed until the observer's callback has run (it runs on
    /// the writer's thread right after the commit, so this is the set's cost plus delivery).
    public static func localNotify(_ subject: Subject) throws -> Workload {
        let calls = Counter()
        var counter = 0
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("notify")
            let store = fixture.store, key = BenchKeys.int
            let token = store.observe(key) { change in calls.record(change.newValue) }
            return Workload("set → observer callback · SQLiteDefaults", keep: [fixture, token]) { count in
                for _ in 0..<count {
                    counter += 1
                    try store.set(counter, for: key)
                    calls.spin(until: counter)
                }
            }
        default:
            let directory = try TemporaryDirectory("notify-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            let keyName = BenchKeys.int.name
            // The hook gives a rowid only; the callback is told which value was written.
            raw.setUpdateHook { _ in calls.record(counter) }
            return Workload("set → update hook callback · raw SQLite", keep: [raw, directory]) { count in
                for _ in 0..<count {
                    counter += 1
                    try raw.set(counter, for: keyName)
                    calls.spin(until: counter)
                }
            }
        }
    }

    /// A `set`, timed until a task iterating `store.updates(key)` has received the value
    /// (a hop from the writer's thread to the consumer task and back through a semaphore).
    public static func updatesDelivery() throws -> Workload {
        let fixture = try StoreFixture("updates")
        let store = fixture.store, key = BenchKeys.int
        let signal = Signal()
        let consumer = Task.detached {
            for await value in store.updates(key) { signal.fire(value) }
        }
        guard signal.wait(for: 0) else { throw BenchmarkFailure("updates(_:) yielded no initial value") }
        var counter = 0
        return Workload("set → updates() consumer · SQLiteDefaults", keep: [fixture], cleanup: { consumer.cancel() }) { count in
            for _ in 0..<count {
                counter += 1
                try store.set(counter, for: key)
                guard signal.wait(for: counter) else { throw BenchmarkFailure("updates(_:) missed \(counter)") }
            }
        }
    }

    /// The floor of any async delivery after commit: a raw SQLite upsert, then the value
    /// yielded into an `AsyncStream`, timed (like ``updatesDelivery()``) until a task iterating
    /// the stream has received it. What it costs beyond the raw set is the hop to a consumer
    /// task. (Yielding from the update hook would be cheaper only because the consumer's
    /// wake-up would overlap the commit: it would hear of a change before it is committed.)
    public static func rawAsyncStreamDelivery() throws -> Workload {
        let directory = try TemporaryDirectory("updates-raw")
        let raw = try RawSQLite(path: directory.file("raw.sqlite"))
        let keyName = BenchKeys.int.name
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let signal = Signal()
        let consumer = Task.detached {
            for await value in stream { signal.fire(value) }
        }
        var counter = 0
        return Workload("set → AsyncStream consumer · raw SQLite", keep: [raw, directory], cleanup: {
            continuation.finish()
            consumer.cancel()
        }) { count in
            for _ in 0..<count {
                counter += 1
                try raw.set(counter, for: keyName)
                continuation.yield(counter)
                guard signal.wait(for: counter) else { throw BenchmarkFailure("the AsyncStream consumer missed \(counter)") }
            }
        }
    }

    // MARK: set with many observers on other keys

    /// `set` of an unobserved Int key while `observers` other keys are observed.
    public static func setWithObservers(_ observers: Int) throws -> Workload {
        let fixture = try StoreFixture("observers")
        let store = fixture.store, key = BenchKeys.int
        let tokens = (0..<observers).map { index in
            store.observe(DefaultsKey<Int>("observed.\(index)", default: 0)) { _ in }
        }
        var counter = 0
        return Workload("set Int · \(observers) observers on other keys", keep: [fixture, tokens as NSArray]) { count in
            for _ in 0..<count {
                counter += 1
                try store.set(counter, for: key)
            }
        }
    }

    /// Bytes of heap still allocated per observer, over `count` observers of distinct keys on
    /// a file store; includes the cache entry each observed key gets. `heapInUse` reads the
    /// live heap (default: glibc's `mallinfo2`).
    public static func memoryPerObserver(count: Int, heapInUse: () -> Int = { Int(csqlitebench_heap_in_use()) }) throws -> Double {
        let fixture = try StoreFixture("observer-memory")
        let keys = (0..<count).map { DefaultsKey<Int>("observed.\($0)", default: 0) }
        var tokens: [DefaultsObservation] = []
        tokens.reserveCapacity(count)
        // Only `fixture` holds the store, so it closes before its directory is removed.
        let warm = fixture.store.observe(BenchKeys.int) { _ in }  // lazily created state
        let before = heapInUse()
        for key in keys { tokens.append(fixture.store.observe(key) { _ in }) }
        let after = heapInUse()
        withExtendedLifetime((tokens, warm)) {}
        return Double(Int(after) - Int(before)) / Double(count)
    }
}

/// How many times a callback ran and the last value it saw; the writer spins on it.
public final class Counter: Sendable {
    private let last = Atomic<Int>(0)
    private let calls = Atomic<Int>(0)

    public init() {}

    public func record(_ value: Int) {
        calls.add(1, ordering: .relaxed)
        last.store(value, ordering: .releasing)
    }

    /// Spins (the callback is expected within microseconds) until `value` was recorded.
    public func spin(until value: Int) {
        var spins = 0
        while last.load(ordering: .acquiring) != value {
            spins += 1
            if spins > 1_000 { sched_yield() }
            if spins > 10_000_000 { fatalError("observer never called for \(value)") }
        }
    }

    public var count: Int { calls.load(ordering: .relaxed) }
}
