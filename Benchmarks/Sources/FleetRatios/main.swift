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
// Each group is a function in its own file (Latency.swift, Burst.swift, SetCost.swift,
// OfflineCost.swift); this file reads the options, starts and stops the machines, and prints.

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
            rows += try await latencyRows(a: a, b: b, probe: probeClient, pushes: pushes, floorTable: floorTable, directory: directory,
                                          samples: latencySamples, warmup: latencyWarmup, pause: pauseMilliseconds, logger: probeLogger)
        }

        if options.wants("burst") {
            // MARK: Burst

            progress("· burst: \(burstMachines) machines")
            for index in 2..<burstMachines {
                let name = String(UnicodeScalar(UInt8(ascii: "A") + UInt8(index)))
                machines.append(try Machine(name: name, directory: directory, url: url, table: table, logger: syncLogger))
            }
            for machine in machines { try await machine.connected(timeout: .seconds(120)) }
            rows += try await burstRows(a: a, receivers: Array(machines.dropFirst()), pushes: pushes, writes: burstWrites, smoke: smoke)
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
        rows += try await setCostRows(synced: synced, setTable: setTable, probe: probeClient, directory: directory,
                                      rounds: costRounds, sets: costSets, keys: costKeys)
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
