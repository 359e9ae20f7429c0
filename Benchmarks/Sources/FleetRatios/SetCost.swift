import BenchmarkSupport
import Foundation
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

/// The "cost" group: `set` of an Int on `synced` (a store whose sync runs, alone on `setTable`) /
/// on a store without one, interleaved rounds, ratio of the medians; the diagnosis rows say where
/// a difference comes from (an observer like the sync's, each set's own time, CPU of this process
/// and of the server's, the setting thread's waits and preemptions).
func setCostRows(synced: Machine, setTable: String, probe: Probe, directory: String,
                 rounds costRounds: Int, sets costSets: Int, keys costKeys: Int) async throws -> [Row] {
    var rows: [Row] = []
    let plain = try DefaultsStore(path: directory + "/set-plain.sqlite")
    // Diagnosis: the part of the sync that runs inside `set` itself, its observer of every key
    // (a Mutex<Set> insert and an AsyncStream yield), on a store with no sync.
    let mimicked = try DefaultsStore(path: directory + "/set-mimic.sqlite")
    let mimic = SyncObserverMimic()
    let mimicObservation = mimicked.observe { change in mimic.localChange(change.key) }
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
    let serverPIDs = try await probe.serverPIDs()

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
            while try await probe.integer(of: lastKey, in: setTable) != Int64(counter) {
                if ContinuousClock.now > deadline { throw BenchFailure("set cost: the sync did not push \(lastKey) = \(counter) within 30 s") }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        try await Task.sleep(for: .milliseconds(20))
    }

    let versionBefore = try await probe.maximumVersion(in: setTable)
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
    let pushCount = try await probe.maximumVersion(in: setTable) - versionBefore
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
    return rows
}
