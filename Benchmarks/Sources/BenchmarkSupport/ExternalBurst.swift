import CSQLiteBench
import Foundation
import SQLiteDefaults

/// Another connection commits `keys` changed keys in one transaction: how long until a reader
/// of this store has them all, against a raw prepared statement reading the same log rows.
///
/// - `feed`: a `changes(since:)` consumer, waiting live when the burst commits, until its last
///   element arrives (the monitor's look, the feed's pages, one `DefaultsHistoryEntry` each).
/// - `observer`: a `changes()` consumer (observers of every key) likewise, in a run of its own.
/// - `raw`: `SELECT seq, key, value, removed, omitted, time, writer_identity FROM
///   defaults_changes WHERE seq > ? ORDER BY seq`, prepared once, stepped through, each column
///   read, on a connection of its own; the floor of reading those rows at all.
///
/// The writer is a raw connection in this process: to the store it is another connection, as
/// another process's would be (it learns of it from the file, never from this process).
public enum ExternalBurst {
    public struct Result: Sendable {
        public let keys: Int
        public let feedNanoseconds: Double
        public let observerNanoseconds: Double
        public let rawNanoseconds: Double
    }

    public static func measure(keys: Int) throws -> Result {
        let feed = try run(keys: keys, consumer: .feed)
        let observer = try run(keys: keys, consumer: .observer)
        return Result(keys: keys, feedNanoseconds: feed.consumer, observerNanoseconds: observer.consumer,
                      rawNanoseconds: min(feed.raw, observer.raw))
    }

    private enum Consumer { case feed, observer }

    /// The last feed run's read of the whole burst after it was in the log (nanoseconds).
    nonisolated(unsafe) public static var catchUp: Double = 0

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func run(keys: Int, consumer: Consumer) throws -> (consumer: Double, raw: Double) {
        let fixture = try StoreFixture("burst")
        let store = fixture.store
        try store.setHistoryRetention(max(keys * 2, 1_000))
        let writer = try RawSQLite(path: fixture.path, schema: .existing)
        let start = try store.newestSequence()
        let finished = Finish()
        let ready = DispatchSemaphore(value: 0)
        let task = Task {
            var count = 0
            switch consumer {
            case .feed:
                var iterator = store.changes(since: start).makeAsyncIterator()
                ready.signal()
                while try await iterator.next() != nil {
                    count += 1
                    if count == keys { break }
                }
            case .observer:
                let changes = store.changes()
                ready.signal()
                for await _ in changes {
                    count += 1
                    if count == keys { break }
                }
            }
            finished.mark(now())
        }
        ready.wait()
        try writer.execute("BEGIN")
        for index in 0..<keys { try writer.set(index, for: "burst.\(index)") }
        try writer.execute("COMMIT")
        let committed = now()
        while finished.at == nil {
            usleep(200)
            if DispatchTime.now().uptimeNanoseconds - committed > 600_000_000_000 {
                task.cancel()
                throw BenchmarkFailure("the \(consumer) consumer did not receive \(keys) changes in 10 minutes")
            }
        }
        let consumerTime = Double((finished.at ?? committed) - committed)
        if consumer == .feed {
            // The same feed reading the burst back once it is all in the log: its read cost alone.
            let again = Finish()
            let began = now()
            Task {
                var count = 0
                var iterator = store.changes(since: start).makeAsyncIterator()
                while try await iterator.next() != nil {
                    count += 1
                    if count == keys { break }
                }
                again.mark(now())
            }
            while again.at == nil { usleep(200) }
            catchUp = Double((again.at ?? began) - began)
        }
        // The floor: the same rows through one prepared statement on a fresh connection.
        let reader = try RawSQLite(path: fixture.path, schema: .existing)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(reader.handle, "SELECT seq, key, value, removed, omitted, time, writer_identity FROM defaults_changes WHERE seq > ?1 ORDER BY seq", -1, &statement, nil) == SQLITE_OK,
              let statement else { throw BenchmarkFailure("preparing the log read failed") }
        defer { sqlite3_finalize(statement) }
        var best = Double.infinity
        for _ in 0..<3 {
            let began = now()
            sqlite3_bind_int64(statement, 1, start)
            var rows = 0
            var sink = 0
            while sqlite3_step(statement) == SQLITE_ROW {
                rows += 1
                sink &+= Int(sqlite3_column_int64(statement, 0)) &+ Int(sqlite3_column_bytes(statement, 1))
                _ = sqlite3_column_text(statement, 1)
                sink &+= Int(sqlite3_column_int64(statement, 2)) &+ Int(sqlite3_column_int64(statement, 3))
                sink &+= Int(sqlite3_column_int64(statement, 4)) &+ Int(sqlite3_column_int64(statement, 5))
                _ = sqlite3_column_text(statement, 6)
            }
            sqlite3_reset(statement)
            guard rows >= keys else { throw BenchmarkFailure("the log holds \(rows) rows after the burst, not \(keys)") }
            best = min(best, Double(now() - began))
            if sink == 42 { print("") }
        }
        return (consumerTime, best)
    }

    /// When the consumer finished, set once from its task.
    private final class Finish: @unchecked Sendable {
        // Sendable proof: `at` is read and written only under `lock`.
        private let lock = NSLock()
        private var value: UInt64?
        func mark(_ time: UInt64) { lock.lock(); value = time; lock.unlock() }
        var at: UInt64? { lock.lock(); defer { lock.unlock() }; return value }
    }
}
