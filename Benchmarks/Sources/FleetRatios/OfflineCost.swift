import BenchmarkSupport
import Foundation
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

/// The "offline" group: `set` of an Int on a store whose sync runs but cannot reach PostgreSQL
/// (a loopback port where nothing listens, so every connection attempt is refused and retried
/// with back-off) / on a store without a sync, interleaved rounds, ratio of the medians. The
/// contract's promise: a local `set` is never slowed by the network.
func offlineCost(directory: String, rounds: Int, sets: Int, keys: Int, logger: Logger) async throws -> [Row] {
    let unreachable = try PostgresURL("postgres://postgres@127.0.0.1:1/postgres?sslmode=disable")
    let offline = try Machine(name: "set-offline", directory: directory, url: unreachable, table: "bench_offline", logger: logger)
    let plain = try DefaultsStore(path: directory + "/set-offline-plain.sqlite")
    let keyList = (0..<keys).map { DefaultsKey<Int>("offline.\($0)", default: 0) }
    var counter = 0

    /// Nanoseconds per set over `sets` sets of changing values.
    func timeSets(_ store: DefaultsStore) throws -> Double {
        let start = ContinuousClock.now
        for index in 0..<sets {
            counter += 1
            try store.set(counter, for: keyList[index % keys])
        }
        return (ContinuousClock.now - start).nanoseconds / Double(sets)
    }

    // A moment for the sync to start failing to connect, then one warm-up round each.
    try await Task.sleep(for: .milliseconds(200))
    _ = try timeSets(offline.store)
    _ = try timeSets(plain)
    var offlineRounds: [Double] = [], plainRounds: [Double] = []
    for round in 0..<rounds {
        // Alternate which store goes first.
        if round.isMultiple(of: 2) {
            offlineRounds.append(try timeSets(offline.store))
            plainRounds.append(try timeSets(plain))
        } else {
            plainRounds.append(try timeSets(plain))
            offlineRounds.append(try timeSets(offline.store))
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    await offline.stop()
    try plain.close()
    let ratio = Stats.median(offlineRounds) / Stats.median(plainRounds)
    return [Row(path: "set Int, autocommit: sync running with PostgreSQL unreachable / no sync (ratio of medians)",
                result: String(format: "%.2f", ratio), target: "≤ 1.1×", verdict: ratio <= 1.1 ? "met" : "MISSED",
                detail: String(format: "%.2f µs vs %.2f µs per set; %d rounds × %d sets on %d keys; the sync retries a refused connection meanwhile",
                               Stats.median(offlineRounds) / 1_000, Stats.median(plainRounds) / 1_000, rounds, sets, keys))]
}
