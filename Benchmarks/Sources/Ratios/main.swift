import BenchmarkSupport
import Foundation
import MallocInterposerSwift
import SQLiteDefaults

// The ratio table: the library and its references measured side by side, interleaved
// round by round (A B C … A B C …), so a machine that slows down mid-run slows every
// subject alike. Each ratio is the median over rounds of that round's ratio.
//
//     Ratios [--smoke] [--only GROUP,…]
//     Ratios --profile WORKLOAD COUNT       one workload alone (valgrind --tool=callgrind)
//
// --smoke: tiny counts (seconds, not minutes) for CI; never fails on timing.
// Groups: get, miss, set, notify, observers, scale, external, burst, idle, stores, memory.
// Run through compare.sh, which preloads the malloc interposer so allocations are counted.
//
// The pieces: Options.swift (the command line and the --profile workloads), Harness.swift
// (interleaved rounds, allocation counts), Groups.swift (what each group measures) and
// Table.swift (rows and printing).

_ = Progress.start
let options = Options(Array(CommandLine.arguments.dropFirst()))
if options.smoke { setenv("SQLITEDEFAULTS_BENCH_SMOKE", "1", 1) }

if let profile = options.profile {
    guard let make = profiles[profile.name] else {
        FileHandle.standardError.write(Data("Ratios: no workload \(profile.name); one of \(profiles.keys.sorted())\n".utf8))
        exit(2)
    }
    do {
        let workload = try make()
        let nanoseconds = try workload.measure(profile.count)
        print("\(workload.name): \(profile.count) ops, \(Double(nanoseconds) / Double(profile.count)) ns/op")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("Ratios: \(error)\n".utf8))
        exit(1)
    }
}
let harness = Harness.current
let started = Date()
// Before any store exists: the baseline of the stores group's thread count, which the idle
// group's store (run first) could otherwise raise with a monitor thread that outlives it.
let threadsAtStart = ManyStores.processThreads
progress("SQLiteDefaults ratio table (\(options.smoke ? "smoke" : "full") run); mallocs counted: \(Allocations.available)")

do {
    let idle = options.wants("idle") ? try Groups.idle(smoke: options.smoke) : nil
    let many = options.wants("stores") ? try Groups.stores(smoke: options.smoke, threadsBefore: threadsAtStart) : nil
    if options.wants("get") { try Groups.get(harness) }
    if options.wants("miss") { try Groups.miss(harness, smoke: options.smoke) }
    if options.wants("set") { try Groups.set(harness) }
    if options.wants("notify") { try Groups.notify(harness) }
    if options.wants("observers") { try Groups.observers(harness, smoke: options.smoke) }
    if options.wants("scale") { try Groups.scale(harness) }
    if options.wants("external") { try Groups.external(smoke: options.smoke) }
    if options.wants("burst") { try Groups.burst(smoke: options.smoke) }
    if let idle { Groups.idleRows(idle) }
    if let many { Groups.storesRows(many, idle: idle) }
    if options.wants("memory") { try Groups.memory(smoke: options.smoke) }
} catch {
    progress("Ratios: \(error)")
    exit(1)
}

printTable(harness: harness, started: started, smoke: options.smoke)
progress(String(format: "done in %.0f s", Date().timeIntervalSince(started)))
