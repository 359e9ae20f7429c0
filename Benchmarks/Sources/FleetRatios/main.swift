import BenchmarkSupport
import Foundation
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

// The fleet benchmarks: stores on separate files in one process, each with its own
// PostgresClient and DefaultsPostgresSync, kept in step through one PostgreSQL server.
//
//     FLEET_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/postgres FleetRatios [--smoke] [--only latency,burst,cost,offline]
//
// Run it through fleet.sh, which starts a throwaway server. Every run uses fresh tables
// (bench_<random>…), dropped at the end. --smoke: tiny counts; never fails on timing (it
// exits non-zero only when something breaks: a sync that never connects, a lost write).
//
// Groups:
//   - latency: write on A → observer on B, isolated writes, each awaited, then a short random
//     pause; split at the moment a listening connection of the benchmark hears the push's
//     NOTIFY; beside a floor (the library's PostgreSQL protocol with postgres-nio alone, no
//     SQLite) and the same isolated set on a store without a sync, interleaved sample by sample.
//   - burst: 1,000 autocommit sets of distinct keys on A, back to back, until all 9 other
//     machines hold all of them (an observer of every key counts them on each).
//   - cost: `set` of an Int on a store whose sync runs / on a store without one, interleaved
//     rounds, ratio of the medians; diagnosis rows say where a difference comes from.
//   - offline: the same `set`, the sync running but PostgreSQL unreachable / no sync
//     (OfflineCost.swift).

let options = Options(Array(CommandLine.arguments.dropFirst()))
let smoke = options.smoke
guard let urlText = ProcessInfo.processInfo.environment["FLEET_POSTGRES_URL"], !urlText.isEmpty else {
    progress("FleetRatios: set FLEET_POSTGRES_URL (postgres://USER@HOST:PORT/DB), or run it through Benchmarks/fleet.sh")
    exit(2)
}

// Counts: (full, smoke).
let latencySamples = smoke ? 10 : 200
let latencyWarmup = smoke ? 3 : 20
let pauseMilliseconds = 2...20
let burstMachines = smoke ? 3 : 10
let burstWrites = smoke ? 50 : 1_000
let costRounds = smoke ? 3 : 21
let costSets = smoke ? 50 : 2_000
let costKeys = 4

let started = Date()
var rows: [Row] = []

func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }

/// Table names of this run: letters, digits and `_`, fresh each time.
let runID = String((0..<10).map { _ in "0123456789abcdef".randomElement()! })
let table = "bench_\(runID)"
let setTable = table + "_set"
let floorTable = table + "_floor"

var syncLogger = Logger(label: "FleetRatios.sync")
syncLogger.logLevel = .warning
var probeLogger = Logger(label: "FleetRatios.probe")
probeLogger.logLevel = .warning

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-bench-\(runID)").path
var machines: [Machine] = []
var probe: Probe?
var serverVersion = "?"

do {
    let url = try PostgresURL(urlText)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let probeClient = Probe(url: url, logger: probeLogger)
    probe = probeClient
    serverVersion = try await probeClient.serverVersion()
    progress("FleetRatios (\(smoke ? "smoke" : "full") run): PostgreSQL \(serverVersion) at \(url), tables \(table)…, files in \(directory)")

    if options.wants("latency") || options.wants("burst") {
        progress("· machines A and B")
        let a = try Machine(name: "A", directory: directory, url: url, table: table, logger: syncLogger)
        let b = try Machine(name: "B", directory: directory, url: url, table: table, logger: syncLogger)
        machines = [a, b]
        for machine in machines { try await machine.connected(timeout: .seconds(120)) }

        // The fleet notifies on its table's canonical name, schema included (FleetTableName.channel).
        let pushes = NotificationLog(probe: probeClient, channel: "public.\(table)")
        try await pushes.ready(timeout: .seconds(30))

        // MARK: A → B latency

        if options.wants("latency") {
            let floor = try await Floor(probe: probeClient, table: floorTable)
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
            progress("· latency: \(latencyWarmup) warm-up + \(latencySamples) isolated writes A → B, each beside one of the floor's")
            try await probeClient.client.withConnection { writer in
                for sample in 0..<(latencyWarmup + latencySamples) {
                    let measured = sample >= latencyWarmup
                    // Rotate the order, so none always follows another's pause.
                    for offset in 0..<Turn.allCases.count {
                        value += 1
                        switch Turn.allCases[(offset + sample) % Turn.allCases.count] {
                        case .library:
                            pushes.reset()
                            let start = ContinuousClock.now
                            try a.store.set(value, for: key)
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
                            for try await _ in try await writer.query("SELECT 1", logger: probeLogger) {}
                            if measured { roundTrip.append((ContinuousClock.now - start).milliseconds) }
                        case .plain:
                            let start = ContinuousClock.now
                            try pacedPlain.set(value, for: key)
                            if measured { plainSetReturn.append((ContinuousClock.now - start).milliseconds) }
                        }
                        try await Task.sleep(for: .milliseconds(Int.random(in: pauseMilliseconds)))
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
                            detail: "\(latency.count) writes, \(pauseMilliseconds.lowerBound)–\(pauseMilliseconds.upperBound) ms random pause after each; B heard \(origins.summary)"))
            rows.append(Row(path: "write on A → observer on B, isolated writes: p99", result: ms(p99),
                            detail: String(format: "max %.2f ms, min %.2f ms", latency.max() ?? .nan, latency.min() ?? .nan)))
            rows.append(Row(path: "  A: set returned", result: ms(Stats.median(setReturn)),
                            detail: "median; p99 \(ms(Stats.percentile(setReturn, 99))); a store without sync, the same isolated set: median \(ms(Stats.median(plainSetReturn))), p99 \(ms(Stats.percentile(plainSetReturn, 99)))"))
            rows.append(Row(path: "  A: set → push committed (NOTIFY heard by a listening connection of the benchmark)", result: ms(Stats.median(toNotify)),
                            detail: "median; p99 " + ms(Stats.percentile(toNotify, 99)) + "; \(toNotify.count) of \(latency.count) writes"))
            rows.append(Row(path: "  B: NOTIFY → observer (B's wake-up, fetch, SQLite apply, delivery)", result: ms(Stats.median(afterNotify)),
                            detail: "median; p99 " + ms(Stats.percentile(afterNotify, 99))))
            rows.append(Row(path: "  floor: postgres-nio alone, the same push transaction → NOTIFY → fetch on a second connection", result: ms(floorMedian),
                            detail: "median; p99 \(ms(Stats.percentile(floorLatency, 99))), max \(ms(floorLatency.max() ?? .nan)); interleaved with the writes above"))
            rows.append(Row(path: "  floor: one statement's round trip (SELECT 1), isolated the same way", result: ms(Stats.median(roundTrip)),
                            detail: "median; p99 \(ms(Stats.percentile(roundTrip, 99))); a push is 4 statements in a row, a fetch 1"))
            rows.append(Row(path: "  write on A → observer on B / floor, medians", result: String(format: "%.2f", median / floorMedian),
                            detail: String(format: "%.2f ms over the floor", median - floorMedian)))
        }

        if options.wants("burst") {
            // MARK: Burst

            progress("· burst: \(burstMachines) machines")
            for index in 2..<burstMachines {
                let name = String(UnicodeScalar(UInt8(ascii: "A") + UInt8(index)))
                machines.append(try Machine(name: name, directory: directory, url: url, table: table, logger: syncLogger))
            }
            for machine in machines { try await machine.connected(timeout: .seconds(120)) }
            let receivers = Array(machines.dropFirst())
            let prefix = "burst."
            let counters = receivers.map { _ in BurstCounter() }
            for counter in counters { counter.expect(burstWrites) }
            let burstObservations = zip(receivers, counters).map { machine, counter in
                machine.store.observeAll { change in
                    if change.key.hasPrefix(prefix), change.newValue != nil { counter.heard() }
                }
            }
            let keys = (0..<burstWrites).map { DefaultsKey<Int>(prefix + String(format: "%04d", $0), default: 0) }
            // Let the joins' own work settle before the burst.
            try await Task.sleep(for: .milliseconds(200))
            progress("· burst: \(burstWrites) sets on A → \(receivers.count) other machines")
            pushes.reset()
            let burstStart = ContinuousClock.now
            for (index, key) in keys.enumerated() { try a.store.set(index + 1, for: key) }
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
        }
        await pushes.stop()

        // Nothing from the first phases runs while sets are timed.
        progress("· stopping the \(machines.count) machines")
        for machine in machines { await machine.stop() }
        machines = []
    }

    if options.wants("cost") {
        // MARK: Local set cost

        progress("· set cost: a store with its sync running (alone on table \(setTable)) / a store without")
        let synced = try Machine(name: "set-synced", directory: directory, url: url, table: setTable, logger: syncLogger)
        machines = [synced]
        try await synced.connected(timeout: .seconds(120))
        let plain = try DefaultsStore(path: directory + "/set-plain.sqlite")
        // Diagnosis: the part of the sync that runs inside `set` itself, its observer of every key
        // (a Mutex<Set> insert and an AsyncStream yield), on a store with no sync.
        let mimicked = try DefaultsStore(path: directory + "/set-mimic.sqlite")
        let mimic = SyncObserverMimic()
        let mimicObservation = mimicked.observeAll { change in mimic.localChange(change.key) }
        let costKeyList = (0..<costKeys).map { DefaultsKey<Int>("cost.\($0)", default: 0) }
        var counter = 0

        enum Subject: CaseIterable { case synced, plain, mimicked }
        struct SubjectResult {
            var rounds: [Double] = []         // nanoseconds per set, one per round
            var sets: [Double] = []           // nanoseconds, each set of the measured rounds
            var processCPU: Duration = .zero  // this process, rounds and settling
            var serverCPU: Duration = .zero   // the server's processes, the same spans
            var elapsed: Duration = .zero     // the same spans
            var setThreadCPU: Duration = .zero  // the thread running the sets, during the sets
            var blocked = 0                     // its voluntary context switches (waits), during the sets
            var preempted = 0                   // its involuntary ones
        }
        var results: [Subject: SubjectResult] = [:]
        let serverPIDs = try await probeClient.serverPIDs()

        func store(_ subject: Subject) -> DefaultsStore {
            switch subject {
            case .synced: synced.store
            case .plain: plain
            case .mimicked: mimicked
            }
        }

        /// Nanoseconds per set over `costSets` sets of changing values; each set's time into
        /// `result.sets`, the setting thread's CPU time and switches into the rest.
        func timeSets(_ store: DefaultsStore, into result: inout SubjectResult) throws -> Double {
            let threadBefore = CPUTime.thread()
            let start = ContinuousClock.now
            var previous = start
            for index in 0..<costSets {
                counter += 1
                try store.set(counter, for: costKeyList[index % costKeys])
                let now = ContinuousClock.now
                result.sets.append((now - previous).nanoseconds)
                previous = now
            }
            let threadAfter = CPUTime.thread()
            result.setThreadCPU += threadAfter.cpu - threadBefore.cpu
            result.blocked += threadAfter.voluntary - threadBefore.voluntary
            result.preempted += threadAfter.involuntary - threadBefore.involuntary
            return (previous - start).nanoseconds / Double(costSets)
        }

        /// Waits until the sync pushed the last value, then lets it settle: its push of one
        /// round must not run during the next round of the store without a sync.
        func settle(_ subject: Subject) async throws {
            if subject == .synced {
                let lastKey = costKeyList[(costSets - 1) % costKeys].name
                let deadline = ContinuousClock.now + .seconds(30)
                while try await probeClient.integer(of: lastKey, in: setTable) != Int64(counter) {
                    if ContinuousClock.now > deadline { throw BenchFailure("set cost: the sync did not push \(lastKey) = \(counter) within 30 s") }
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            try await Task.sleep(for: .milliseconds(20))
        }

        let versionBefore = try await probeClient.maximumVersion(in: setTable)
        // One warm-up round each, not counted.
        for subject in Subject.allCases {
            var ignored = SubjectResult()
            _ = try timeSets(store(subject), into: &ignored)
            try await settle(subject)
        }
        progress("· set cost: \(costRounds) rounds × \(costSets) sets, each of \(Subject.allCases.count) stores")
        for round in 0..<costRounds {
            // Rotate the order so no subject always runs first after a pause.
            for offset in 0..<Subject.allCases.count {
                let subject = Subject.allCases[(offset + round) % Subject.allCases.count]
                var result = results[subject] ?? SubjectResult()
                let cpuBefore = CPUTime.process(), serverBefore = CPUTime.processes(serverPIDs), start = ContinuousClock.now
                result.rounds.append(try timeSets(store(subject), into: &result))
                try await settle(subject)
                result.elapsed += ContinuousClock.now - start
                result.processCPU += CPUTime.process() - cpuBefore
                result.serverCPU += CPUTime.processes(serverPIDs) - serverBefore
                results[subject] = result
            }
        }
        let pushCount = try await probeClient.maximumVersion(in: setTable) - versionBefore
        let s = results[.synced] ?? SubjectResult(), p = results[.plain] ?? SubjectResult(), m = results[.mimicked] ?? SubjectResult()
        let syncedMedian = Stats.median(s.rounds), plainMedian = Stats.median(p.rounds), mimicMedian = Stats.median(m.rounds)
        let costRatio = syncedMedian / plainMedian
        let perRound = Stats.median(zip(s.rounds, p.rounds).map { $0 / $1 })
        let measuredSets = Double(costRounds * costSets)
        rows.append(Row(path: "set Int, autocommit: sync running / no sync (ratio of medians)", result: String(format: "%.2f", costRatio),
                        target: "≤ 1.1×", verdict: costRatio <= 1.1 ? "met" : "MISSED",
                        detail: String(format: "%.2f µs vs %.2f µs per set; median of per-round ratios %.2f; %d rounds × %d sets on %d keys; ",
                                       syncedMedian / 1_000, plainMedian / 1_000, perRound, costRounds, costSets, costKeys)
                            + "\(pushCount) pushes carried the \((costRounds + 1) * costSets) synced sets"))
        rows.append(Row(path: "  diagnosis: set Int with an observer like the sync's (no sync) / no sync", result: String(format: "%.2f", mimicMedian / plainMedian),
                        detail: String(format: "%.2f µs vs %.2f µs per set: what the sync adds inside set itself", mimicMedian / 1_000, plainMedian / 1_000)))
        func distribution(_ sets: [Double]) -> String {
            let slow = sets.filter { $0 > 100_000 }
            return String(format: "median %.1f µs, p90 %.1f µs, p99 %.1f µs, max %.2f ms; %.2f%% of sets over 100 µs, %.1f%% of the time",
                          Stats.median(sets) / 1_000, Stats.percentile(sets, 90) / 1_000, Stats.percentile(sets, 99) / 1_000,
                          (sets.max() ?? .nan) / 1e6, 100 * Double(slow.count) / Double(max(sets.count, 1)),
                          100 * slow.reduce(0, +) / max(sets.reduce(0, +), 1))
        }
        rows.append(Row(path: "  diagnosis: one set's own time, sync running / no sync, medians", result: String(format: "%.2f", Stats.median(s.sets) / Stats.median(p.sets)),
                        detail: "sync running: " + distribution(s.sets) + " — no sync: " + distribution(p.sets)))
        func cpu(_ result: SubjectResult) -> String {
            String(format: "process %.1f µs + server %.1f µs per set (%.0f%% + %.0f%% of a core)",
                   result.processCPU.nanoseconds / 1_000 / measuredSets, result.serverCPU.nanoseconds / 1_000 / measuredSets,
                   100 * result.processCPU.nanoseconds / result.elapsed.nanoseconds, 100 * result.serverCPU.nanoseconds / result.elapsed.nanoseconds)
        }
        rows.append(Row(path: "  diagnosis: CPU per set, sync running / no sync (this process + the PostgreSQL server's processes)",
                        result: String(format: "%.2f", (s.processCPU + s.serverCPU).nanoseconds / max((p.processCPU + p.serverCPU).nanoseconds, 1)),
                        detail: "sync running: " + cpu(s) + " — no sync: " + cpu(p) + "; rounds plus their settling, \(serverPIDs.count) server processes"))
        func thread(_ result: SubjectResult) -> String {
            String(format: "%.1f µs CPU per set, %.1f waits and %.1f preemptions per 1,000 sets",
                   result.setThreadCPU.nanoseconds / 1_000 / measuredSets,
                   1_000 * Double(result.blocked) / measuredSets, 1_000 * Double(result.preempted) / measuredSets)
        }
        rows.append(Row(path: "  diagnosis: the setting thread's own CPU per set, sync running / no sync",
                        result: String(format: "%.2f", s.setThreadCPU.nanoseconds / max(p.setThreadCPU.nanoseconds, 1)),
                        detail: "sync running: " + thread(s) + " — no sync: " + thread(p)
                            + String(format: " (wall %.1f vs %.1f µs per set, mean)", s.rounds.reduce(0, +) / Double(max(s.rounds.count, 1)) / 1_000,
                                     p.rounds.reduce(0, +) / Double(max(p.rounds.count, 1)) / 1_000)))
        mimicObservation.cancel()
        try mimicked.close()
        try plain.close()
    }
    if options.wants("offline") {
        progress("· set cost while PostgreSQL is unreachable: \(costRounds) rounds × \(costSets) sets")
        rows += try await offlineCost(directory: directory, rounds: costRounds, sets: costSets, keys: costKeys, logger: syncLogger)
    }
} catch {
    progress("FleetRatios: \(error)")
    for machine in machines { await machine.stop() }
    if let probe {
        try? await probe.execute("DROP TABLE IF EXISTS \(table), \(setTable), \(floorTable)")
        await probe.stop()
    }
    try? FileManager.default.removeItem(atPath: directory)
    exit(1)
}

// MARK: Clean up

for machine in machines { await machine.stop() }
if let probe {
    try? await probe.execute("DROP TABLE IF EXISTS \(table), \(setTable), \(floorTable)")
    await probe.stop()
}
try? FileManager.default.removeItem(atPath: directory)

// MARK: Print

print(ReportHeader.line(title: "SQLiteDefaults fleet benchmarks", started: started,
                        suffix: ", PostgreSQL \(serverVersion) on loopback", smoke: smoke))
print("All machines are stores on separate files in one process, each with its own PostgresClient and sync.")
print("")
print("| path | result | target | met? | detail |")
print("| --- | ---: | --- | --- | --- |")
for row in rows {
    print("| \(row.path) | \(row.result) | \(row.target) | \(row.verdict) | \(row.detail) |")
}
progress(String(format: "done in %.0f s", Date().timeIntervalSince(started)))
