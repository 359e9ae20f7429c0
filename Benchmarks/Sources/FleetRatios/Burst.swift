import BenchmarkSupport
import Foundation
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

/// The "burst" group: `writes` autocommit sets of distinct keys on `a`, back to back, until every
/// one of `receivers` holds all of them (an observer of every key counts them on each); also how
/// long the sets took and when `pushes` heard the last push.
func burstRows(a: Machine, receivers: [Machine], pushes: NotificationLog, writes burstWrites: Int, smoke: Bool) async throws -> [Row] {
    var rows: [Row] = []
    let prefix = "burst."
    let counters = receivers.map { _ in BurstCounter() }
    for counter in counters { counter.expect(burstWrites) }
    let burstObservations = zip(receivers, counters).map { machine, counter in
        machine.store.observe { change in
            if change.key.hasPrefix(prefix), change.newValue != nil { counter.heard() }
        }
    }
    let keys = (0..<burstWrites).map { DefaultsKey<Int>(prefix + String(format: "%04d", $0), default: 0) }
    // Let the joins' own work settle before the burst.
    try await Task.sleep(for: .milliseconds(200))
    progress("· burst: \(burstWrites) sets on A → \(receivers.count) other machines")
    pushes.reset()
    let burstStart = ContinuousClock.now
    for (index, key) in keys.enumerated() { try setSynchronously(a.store, index + 1, for: key) }
    let setsDone = ContinuousClock.now
    let burstDeadline = burstStart + .seconds(smoke ? 60 : 120)
    while counters.contains(where: { $0.completed == nil }) {
        if ContinuousClock.now > burstDeadline {
            throw BenchFailure("burst: not all applied within \(burstDeadline - burstStart): " +
                               zip(receivers, counters).map { "\($0.name) \($1.count)" }.joined(separator: ", "))
        }
        try await Task.sleep(for: .milliseconds(5))
    }
    let completions = counters.compactMap(\.completed).map { ($0 - burstStart).milliseconds / 1_000 }
    let burstSeconds = completions.max() ?? .nan
    let notifications = pushes.entries.filter { $0.at >= burstStart }
    let lastPush = notifications.last.map { ($0.at - burstStart).milliseconds / 1_000 } ?? .nan
    rows.append(Row(path: "burst: \(burstWrites) autocommit sets on A → all held by \(receivers.count) other machines", result: String(format: "%.2f s", burstSeconds),
                    target: "≤ 5 s", verdict: burstSeconds <= 5 ? "met" : "MISSED",
                    detail: String(format: "first machine done at %.2f s, median machine %.2f s", completions.min() ?? .nan, Stats.median(completions))))
    rows.append(Row(path: "  A: the \(burstWrites) sets themselves", result: ms((setsDone - burstStart).milliseconds),
                    detail: String(format: "%.1f µs per set", (setsDone - burstStart).nanoseconds / 1_000 / Double(burstWrites))))
    rows.append(Row(path: "  A: last push committed (last NOTIFY heard)", result: String(format: "%.2f s", lastPush),
                    detail: "\(notifications.count) pushes (NOTIFYs) carried the \(burstWrites) sets"))
    for observation in burstObservations { observation.cancel() }
    return rows
}
