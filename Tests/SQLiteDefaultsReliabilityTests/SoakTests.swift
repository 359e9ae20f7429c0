import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Four writer processes and two observer processes on one file. The writers `set`,
/// `modify`, `remove` and run transactions (some rolled back, some with a rolled-back
/// savepoint inside) on overlapping keys; then every acknowledged write is accounted for,
/// the file is intact, and each observer's last notification per key is the key's final value.
///
/// `SOAK_SECONDS` sets how long the writers run (default 60).
@Suite("Multi-process soak", .offThePool, .slowTier, .requiresSQLiteShell)
struct SoakTests {
    @Test(.timeLimit(.minutes(30)))
    func fourWritersTwoObserversLoseNothing() async throws {
        // The soak's blocking waits (for lines, for exits, for the shell) hold this thread of
        // its own for the minutes it runs, not one of the cooperative pool.
        try await onOwnThread { try soak() }
    }

    private func soak() throws {
        let seconds = environmentNumber("SOAK_SECONDS", default: 60)
        let directory = try TemporaryDirectory()
        let database = directory.database
        do { _ = try DefaultsStore(path: database) }  // schema in place before anyone races for it
        let helper = builtExecutable("ReliabilityHelper")

        let observers = try ["callback", "stream"].map { try HelperProcess(helper, ["soak-observer", database, $0]) }
        defer { for observer in observers { observer.kill() } }
        for observer in observers {
            try #require(observer.waitForLine { $0 == "ready" } != nil, "observer did not start: \(observer.errorOutput)")
        }

        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        let started = ContinuousClock.now
        let writers = try (0..<4).map { id in
            try HelperProcess(helper, ["soak-writer", database, "\(id)", "\(seconds)", "\(seed &+ UInt64(id))"])
        }
        defer { for writer in writers { writer.kill() } }
        for writer in writers {
            try #require(writer.waitForExit(timeout: .seconds(seconds + 300)), "writer did not finish")
        }
        let elapsed = ContinuousClock.now - started

        // 1. Every writer finished without an error and said what it did.
        var summaries: [[String: Int]] = []
        for (id, writer) in writers.enumerated() {
            #expect(writer.terminationStatus == 0, "writer \(id) (seed \(seed &+ UInt64(id))): \(writer.errorOutput)")
            let summary = try #require(writer.output.first { $0.hasPrefix("summary ") }, "writer \(id) printed no summary: \(writer.errorOutput)")
            let numbers = fields(summary)
            #expect(numbers["errors"] == 0, "writer \(id): \(writer.errorOutput)")
            summaries.append(numbers)
        }

        // 2. The counters add up exactly; transactions are whole; each writer's last write is there.
        let rows = try canonicalRows(database)
        for index in 0..<4 {
            let increments = summaries.reduce(0) { $0 + ($1["c\(index)"] ?? 0) }
            #expect(rows["soak.counter.\(index)"] == "i:\(increments)", "counter \(index)")
        }
        let transactions = summaries.reduce(0) { $0 + ($1["tx"] ?? 0) }
        #expect(rows["soak.tx.total"] == "i:\(transactions)")
        for (id, summary) in summaries.enumerated() {
            #expect(rows["soak.tx.w\(id)"] == ((summary["tx"] ?? 0) == 0 ? nil : "i:\(summary["tx"] ?? 0)"))
            #expect(rows["soak.own.\(id)"] == "i:\(summary["own"] ?? -1)")
        }
        #expect(rows["soak.pair.a"] == rows["soak.pair.b"])
        #expect(rows["soak.ghost"] == nil, "a rolled-back write is in the file")
        #expect(try sqlite3(database, "PRAGMA integrity_check") == "ok")

        // 3. Each observer's last word on every key is the key's final value, and it heard
        //    nothing from a rolled-back transaction and no counter going backwards.
        let keys = Set(rows.keys).union((0..<8).map { "soak.shared.\($0)" })
        for (index, observer) in observers.enumerated() {
            var mismatches: [String] = []
            var stats: [String: Int] = [:]
            let deadline = ContinuousClock.now + .seconds(30)
            repeat {
                let (heard, statsLine) = dump(observer)
                stats = fields(statsLine)
                mismatches = keys.sorted().filter { heard[$0, default: "nil"] != rows[$0, default: "nil"] }
                    .map { "\($0): heard \(heard[$0, default: "nil"]) stored \(rows[$0, default: "nil"])" }
                mismatches += heard.keys.filter { !keys.contains($0) }.map { "\($0): heard but never stored" }
                if mismatches.isEmpty { break }
                usleep(50_000)
            } while ContinuousClock.now < deadline
            #expect(mismatches.isEmpty, "observer \(index) (seed \(seed)): \(mismatches)")
            #expect(stats["ghosts"] == 0, "observer \(index) heard a rolled-back write")
            #expect(stats["regressions"] == 0, "observer \(index) heard a counter go backwards")
            #expect((stats["notifications"] ?? 0) > 0)
            reportFigure("soak observer \(index): \(stats["notifications"] ?? 0) notifications")
        }

        let operations = summaries.reduce(0) { $0 + ($1["ops"] ?? 0) }
        let rollbacks = summaries.reduce(0) { $0 + ($1["rollbacks"] ?? 0) + ($1["savepoints"] ?? 0) }
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        reportFigure(String(format: "soak: %.0f s, 4 writers + 2 observers, %d operations (%.0f/s), %d committed transactions, %d rollbacks, seed %llu",
                            wall, operations, Double(operations) / seconds, transactions, rollbacks, seed))
        for observer in observers { observer.send("quit") }
    }

    /// The same in one process: eight threads on two stores over one file (`modify`, `set`,
    /// `remove`, transactions, rolled-back transactions). The counters add up; each store's
    /// observer, and an `updates` stream, end on every key's final value; nothing of a
    /// rolled-back transaction is heard.
    @Test(.timeLimit(.minutes(5)))
    func eightThreadsTwoStoresOneProcess() async throws {
        let directory = try TemporaryDirectory()
        let stores = [try DefaultsStore(path: directory.database), try DefaultsStore(path: directory.database)]
        let heard = [LastValues(), LastValues()]
        let tokens = zip(stores, heard).map { store, last in
            store.observe { change in last.record(change.key, canonical(change.newValue)) }
        }
        let watched = DefaultsKey<String?>("thread.shared.0")
        let streamed = Collected<String>()
        let updates = stores[1].updates(watched)
        let streamTask = Task.detached { for await value in updates { streamed.append(value ?? "nil") } }
        defer { streamTask.cancel() }

        let operations = Int(environmentNumber("THREAD_SOAK_OPERATIONS", default: 1_500))
        let increments = Locked([0, 0, 0, 0])
        let failures = Collected<String>()
        let group = DispatchGroup()
        for thread in 0..<8 {
            group.enter()
            Thread {
                defer { group.leave() }
                let store = stores[thread % 2]
                var random = SeededRandom(seed: UInt64(thread) &* 7919)
                for sequence in 0..<operations {
                    do {
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0..<4:
                            let index = Int.random(in: 0..<4, using: &random)
                            try store.modify(DefaultsKey<Int>("thread.counter.\(index)", default: 0)) { $0 += 1 }
                            increments.withLock { $0[index] += 1 }
                        case 4..<6:
                            store[DefaultsKey<String?>("thread.shared.\(Int.random(in: 0..<3, using: &random))")] = "t\(thread)-\(sequence)"
                        case 6:
                            try store.remove(DefaultsKey<String?>("thread.shared.\(Int.random(in: 0..<3, using: &random))"))
                        case 7..<9:
                            try store.transaction { tx in
                                tx[DefaultsKey<String?>("thread.shared.\(Int.random(in: 0..<3, using: &random))")] = "tx\(thread)-\(sequence)"
                                try tx.set(try tx.value(for: DefaultsKey<Int>("thread.counter.0", default: 0)) + 1, for: DefaultsKey<Int>("thread.counter.0", default: 0))
                            }
                            increments.withLock { $0[0] += 1 }
                        default:
                            try? store.transaction { tx in
                                tx[DefaultsKey<String?>("thread.ghost")] = "ghost"
                                throw CancellationError()
                            }
                        }
                    } catch {
                        failures.append("thread \(thread): \(error)")
                    }
                }
            }.start()
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(5))")
        #expect(stores.allSatisfy { $0.lastReportedError == nil })

        let rows = try canonicalRows(directory.database)
        for (index, count) in increments.withLock({ $0 }).enumerated() {
            #expect(rows["thread.counter.\(index)"] == "i:\(count)", "counter \(index)")
        }
        #expect(rows["thread.ghost"] == nil)
        let keys = Set(rows.keys).union((0..<3).map { "thread.shared.\($0)" })
        for (index, last) in heard.enumerated() {
            var mismatches: [String] = []
            let converged = await last.waitAsync { values in
                mismatches = keys.filter { values[$0, default: "nil"] != rows[$0, default: "nil"] }.sorted()
                return mismatches.isEmpty && values["thread.ghost"] == nil
            }
            #expect(converged, "store \(index)'s observer did not end on the final values: \(mismatches)")
        }
        let final = rows["thread.shared.0"].map { value -> String in
            guard value.hasPrefix("t:") else { return value }
            let hexText = value.dropFirst(2)
            let bytes = stride(from: 0, to: hexText.count, by: 2).map { offset -> UInt8 in
                let start = hexText.index(hexText.startIndex, offsetBy: offset)
                return UInt8(hexText[start..<hexText.index(start, offsetBy: 2)], radix: 16)!
            }
            return String(decoding: bytes, as: UTF8.self)
        } ?? "nil"
        #expect(await streamed.waitAsync { $0.last == final }, "updates() ended on \(streamed.all.last ?? "-"), not \(final)")
        reportFigure("in-process soak: 8 threads × \(operations) operations on 2 stores, \(increments.withLock { $0.reduce(0, +) }) increments accounted for")
        _ = tokens
    }

    /// Asks an observer for what it heard; returns the last value per key and its stats line.
    private func dump(_ observer: HelperProcess) -> ([String: String], String) {
        let endsBefore = observer.output.filter { $0 == "end" }.count
        observer.send("dump")
        observer.lines.wait(timeout: .seconds(20)) { $0.filter { $0 == "end" }.count > endsBefore }
        let lines = observer.output
        guard let end = lines.indices.filter({ lines[$0] == "end" }).dropFirst(endsBefore).first else { return ([:], "") }
        let start = lines[..<end].lastIndex { $0 == "end" }.map { $0 + 1 } ?? 0
        var heard: [String: String] = [:]
        var stats = ""
        for line in lines[start..<end] {
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[0] == "value" { heard[String(parts[1])] = String(parts[2]) }
            if line.hasPrefix("stats ") { stats = line }
        }
        return (heard, stats)
    }
}

/// The last value heard per key, for in-process observers.
final class LastValues: Sendable {
    private let values = Locked<[String: String]>([:])

    func record(_ key: String, _ value: String) { values.withLock { $0[key] = value } }

    /// Waits, suspended (no pool thread held), until `condition` holds for the values heard
    /// or `timeout` passes; returns whether it held.
    func waitAsync(timeout: Duration = .seconds(20), until condition: ([String: String]) -> Bool) async -> Bool {
        await waitUntil(timeout: timeout) { condition(values.withLock { $0 }) }
    }
}
