import BenchmarkSupport
import Foundation
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

/// The "latency" group: write on A → observer on B, isolated writes, each awaited, then a short
/// random pause; split at the moment `pushes` (a listening connection of the benchmark) hears the
/// push's NOTIFY; beside a floor (the second edition's PostgreSQL protocol with postgres-nio
/// alone, no SQLite on `floorTable`), one `SELECT 1` round trip, and the same isolated set on a
/// store without a sync, interleaved sample by sample.
func latencyRows(a: Machine, b: Machine, probe: Probe, pushes: NotificationLog, floorTable: String, directory: String,
                 samples: Int, warmup: Int, pause: ClosedRange<Int>, logger: Logger) async throws -> [Row] {
    var rows: [Row] = []
    let floor = try await Floor(probe: probe, table: floorTable)
    let key = DefaultsKey<Int>("fleet.latency", default: -1)
    let onB = Arrivals()
    let origins = OriginCount()
    let observation = b.store.observe(key) { change in
        onB.record(Int64(change.newValue))
        origins.note(change.origin)
    }

    var latency: [Double] = [], toNotify: [Double] = [], afterNotify: [Double] = [], setReturn: [Double] = []
    var floorLatency: [Double] = [], plainSetReturn: [Double] = [], roundTrip: [Double] = []
    // Diagnosis: the same isolated set, on a store without a sync.
    let pacedPlain = try DefaultsStore(path: directory + "/paced-plain.sqlite")
    var value = 0
    enum Turn: CaseIterable { case library, floor, plain, roundTrip }
    progress("· latency: \(warmup) warm-up + \(samples) isolated writes A → B, each beside one of the floor's")
    try await probe.client.withConnection { writer in
        for sample in 0..<(warmup + samples) {
            let measured = sample >= warmup
            // Rotate the order, so none always follows another's pause.
            for offset in 0..<Turn.allCases.count {
                value += 1
                switch Turn.allCases[(offset + sample) % Turn.allCases.count] {
                case .library:
                    pushes.reset()
                    let start = ContinuousClock.now
                    try setSynchronously(a.store, value, for: key)
                    let returned = ContinuousClock.now
                    let arrived = try await onB.wait(for: Int64(value), timeout: .seconds(20), what: "A → B")
                    // The benchmark's listener may note the NOTIFY a moment after B applied it.
                    let noted = ContinuousClock.now + .milliseconds(100)
                    while pushes.first(after: start) == nil, ContinuousClock.now < noted {
                        try await Task.sleep(for: .microseconds(200))
                    }
                    if measured {
                        latency.append((arrived - start).milliseconds)
                        setReturn.append((returned - start).milliseconds)
                        if let notified = pushes.first(after: start) {
                            toNotify.append((notified - start).milliseconds)
                            afterNotify.append((arrived - notified).milliseconds)
                        }
                    }
                case .floor:
                    let start = ContinuousClock.now
                    try await floor.push(Int64(value), key: "fleet.latency", on: writer)
                    let arrived = try await floor.arrivals.wait(for: Int64(value), timeout: .seconds(20), what: "floor")
                    if measured { floorLatency.append((arrived - start).milliseconds) }
                case .roundTrip:
                    let start = ContinuousClock.now
                    for try await _ in try await writer.query("SELECT 1", logger: logger) {}
                    if measured { roundTrip.append((ContinuousClock.now - start).milliseconds) }
                case .plain:
                    let start = ContinuousClock.now
                    try setSynchronously(pacedPlain, value, for: key)
                    if measured { plainSetReturn.append((ContinuousClock.now - start).milliseconds) }
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: pause)))
            }
        }
    }
    try pacedPlain.close()
    observation.cancel()
    await floor.stop()

    let median = Stats.median(latency), p99 = Stats.percentile(latency, 99)
    let floorMedian = Stats.median(floorLatency)
    rows.append(Row(path: "write on A → observer on B, isolated writes: median", result: ms(median), target: "≤ 10 ms",
                    verdict: median <= 10 ? "met" : "MISSED",
                    detail: "\(latency.count) writes, \(pause.lowerBound)–\(pause.upperBound) ms random pause after each; B heard \(origins.summary)"))
    rows.append(Row(path: "write on A → observer on B, isolated writes: p99", result: ms(p99),
                    detail: String(format: "max %.2f ms, min %.2f ms", latency.max() ?? .nan, latency.min() ?? .nan)))
    rows.append(Row(path: "  A: set returned", result: ms(Stats.median(setReturn)),
                    detail: "median; p99 \(ms(Stats.percentile(setReturn, 99))); a store without sync, the same isolated set: median \(ms(Stats.median(plainSetReturn))), p99 \(ms(Stats.percentile(plainSetReturn, 99)))"))
    rows.append(Row(path: "  A: set → push committed (NOTIFY heard by a listening connection of the benchmark)", result: ms(Stats.median(toNotify)),
                    detail: "median; p99 " + ms(Stats.percentile(toNotify, 99)) + "; \(toNotify.count) of \(latency.count) writes"))
    rows.append(Row(path: "  B: NOTIFY → observer (B's wake-up, the rows from the payload or a fetch, SQLite apply, delivery)", result: ms(Stats.median(afterNotify)),
                    detail: "median; p99 " + ms(Stats.percentile(afterNotify, 99))))
    rows.append(Row(path: "  floor: postgres-nio alone, the second edition's push transaction → NOTIFY → fetch on a second connection", result: ms(floorMedian),
                    detail: "median; p99 \(ms(Stats.percentile(floorLatency, 99))), max \(ms(floorLatency.max() ?? .nan)); interleaved with the writes above"))
    rows.append(Row(path: "  floor: one statement's round trip (SELECT 1), isolated the same way", result: ms(Stats.median(roundTrip)),
                    detail: "median; p99 \(ms(Stats.percentile(roundTrip, 99))); a push is 4 statements in a row, a fetch 1"))
    rows.append(Row(path: "  write on A → observer on B / floor, medians", result: String(format: "%.2f", median / floorMedian),
                    detail: String(format: "%.2f ms over the floor", median - floorMedian)))
    return rows
}
