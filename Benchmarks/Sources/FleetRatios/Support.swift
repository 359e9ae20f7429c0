import Foundation
import SQLiteDefaults
import Synchronization

/// What stops the run: a sample that never arrived, a sync that never connected.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15
    }

    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}

/// A duration in milliseconds, for the table.
func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }

func progress(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// When each awaited value arrived: filled by an observer (or a reader), read by the loop that
/// waits for it. The instant is taken where the value arrives, so how often the waiting loop
/// polls does not change what is measured.
final class Arrivals: Sendable {
    private let arrived = Mutex<[Int64: ContinuousClock.Instant]>([:])

    func record(_ value: Int64, at instant: ContinuousClock.Instant = .now) {
        arrived.withLock { arrived in
            if arrived[value] == nil { arrived[value] = instant }
        }
    }

    /// Waits until `value` arrived; returns when it did.
    func wait(for value: Int64, timeout: Duration, what: String) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let instant = arrived.withLock({ $0.removeValue(forKey: value) }) { return instant }
            if ContinuousClock.now > deadline {
                throw BenchFailure("\(what): value \(value) did not arrive within \(timeout)")
            }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

/// Counts the changes of keys under a prefix one machine's store heard, and notes when the
/// count reached the number expected.
final class BurstCounter: Sendable {
    private struct State {
        var count = 0
        var expected = Int.max
        var completed: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    func expect(_ count: Int) {
        state.withLock { $0 = State(count: 0, expected: count, completed: nil) }
    }

    func heard() {
        let now = ContinuousClock.now
        state.withLock { state in
            state.count += 1
            if state.count == state.expected { state.completed = now }
        }
    }

    var count: Int { state.withLock { $0.count } }
    var completed: ContinuousClock.Instant? { state.withLock { $0.completed } }
}

/// Who made the changes an observer heard (B should hear A's writes as `.external`).
final class OriginCount: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func note(_ origin: DefaultsChangeOrigin) {
        counts.withLock { $0[origin.rawValue, default: 0] += 1 }
    }

    var summary: String {
        counts.withLock { counts in
            counts.sorted { $0.key < $1.key }.map { "\($1) \($0)" }.joined(separator: ", ")
        }
    }
}

/// What the sync's observer of every key does inside `set` (SyncSignals.localChange): a key
/// into a Mutex-guarded Set, a yield to an AsyncStream buffering the newest element. Nothing
/// consumes the stream; the set is emptied now and then so it stays small.
final class SyncObserverMimic: Sendable {
    private struct State {
        var dirty: Set<String> = []
        var continuation: AsyncStream<Void>.Continuation
    }

    private let state: Mutex<State>
    private let stream: AsyncStream<Void>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.stream = stream
        state = Mutex(State(continuation: continuation))
    }

    func localChange(_ key: String) {
        state.withLock { state in
            if state.dirty.count > 64 { state.dirty.removeAll(keepingCapacity: true) }
            state.dirty.insert(key)
            state.continuation.yield()
        }
    }
}

/// CPU time (user + system) of this process and of other processes, from the kernel.
enum CPUTime {
    static func process() -> Duration {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }

    /// The calling thread's CPU time and context switches: voluntary (it blocked, on a lock
    /// or I/O) and involuntary (it was preempted). Linux only; zeros elsewhere.
    static func thread() -> (cpu: Duration, voluntary: Int, involuntary: Int) {
        #if canImport(Glibc)
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD (needs _GNU_SOURCE in C)
        func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
        return (duration(usage.ru_utime) + duration(usage.ru_stime), usage.ru_nvcsw, usage.ru_nivcsw)
        #else
        return (.zero, 0, 0)
        #endif
    }

    private static let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))

    /// Summed over `pids` (those that ended count as zero): utime + stime of /proc/PID/stat,
    /// in clock ticks (10 ms), so only sums over many rounds mean anything.
    static func processes(_ pids: [Int32]) -> Duration {
        var ticks: Int64 = 0
        for pid in pids {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { continue }
            // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Int64(fields[11]), let system = Int64(fields[12]) else { continue }
            ticks += user + system
        }
        return .milliseconds(ticks * 1_000 / max(ticksPerSecond, 1))
    }
}
