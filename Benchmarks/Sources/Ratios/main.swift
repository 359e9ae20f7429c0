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
// Groups: get, miss, set, notify, observers, scale, external, idle, stores, memory.
// Run through compare.sh, which preloads the malloc interposer so allocations are counted.

struct Options {
    var smoke = false
    var only: Set<String>?
    var profile: (name: String, count: Int)?

    @MainActor
    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--smoke": smoke = true
            case "--only": only = Set((iterator.next() ?? "").split(separator: ",").map(String.init))
            case "--profile":
                profile = (iterator.next() ?? "", Int(iterator.next() ?? "") ?? 100_000)
            case "-h", "--help":
                print("usage: Ratios [--smoke] [--only get,miss,set,notify,observers,scale,external,idle,stores,memory]")
                print("       Ratios --profile WORKLOAD COUNT   run one workload COUNT times, nothing else (for valgrind/perf)")
                print("       workloads: \(profiles.keys.sorted().joined(separator: " "))")
                exit(0)
            default:
                FileHandle.standardError.write(Data("Ratios: unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
    }

    func wants(_ group: String) -> Bool { only?.contains(group) ?? true }
}

/// Single workloads for `--profile` (valgrind --tool=callgrind, perf): run with COUNT and with
/// 1 and subtract to get the cost of one operation.
let profiles: [String: () throws -> Workload] = [
    "get-int": { try Workloads.getInt(.defaults) },
    "get-int-dictionary": { try Workloads.getInt(.dictionary) },
    "get-string": { try Workloads.getString(.defaults) },
    "get-string-dictionary": { try Workloads.getString(.dictionary) },
    "get-codable": { try Workloads.getCodable(.defaults) },
    "get-codable-dictionary": { try Workloads.getCodable(.dictionary) },
    "get-random-large": { Workloads.scaleGetRandom(try Workloads.LargeTable(rows: RunMode.largeTable)) },
    "get-random-large-dictionary": { Workloads.scaleDictionaryGetRandom(rows: RunMode.largeTable) },
    "get-random-large-dictionary-keys": { Workloads.scaleDictionaryGetRandomThroughKeys(rows: RunMode.largeTable) },
    "set-int": { try Workloads.setInt(.defaults) },
    "set-int-nomonitor": { try Workloads.setIntWithoutMonitor() },
    "set-int-raw": { try Workloads.setInt(.raw) },
    "set-int-bare": { try Workloads.setIntBare() },
    "set-string": { try Workloads.setString(.defaults) },
    "set-string-raw": { try Workloads.setString(.raw) },
    "tx100": { try Workloads.transaction100(.defaults) },
    "tx100-raw": { try Workloads.transaction100(.raw) },
    "modify": { try Workloads.modify(.defaults) },
    "modify-raw": { try Workloads.modify(.raw) },
    "notify": { try Workloads.localNotify(.defaults) },
    "notify-raw": { try Workloads.localNotify(.raw) },
]

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

let processStart = Clock.nanoseconds()

func progress(_ text: String) {
    let seconds = Double(Clock.nanoseconds() - processStart) / 1e9
    FileHandle.standardError.write(Data((String(format: "[%6.1f s] ", seconds) + text + "\n").utf8))
}

// MARK: Allocation counting

enum Allocations {
    /// Whether the interposer is really in the malloc path (compare.sh preloads it).
    static let available: Bool = {
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        let probe = [Int](repeating: 7, count: 1_000)
        consume(probe)
        MallocInterposerSwift.unhook()
        return MallocInterposerSwift.getStatistics().mallocCount > 0
    }()

    /// Mallocs per operation over `count` operations, or nil without the interposer.
    static func perOperation(_ workload: Workload, count: Int) throws -> Double? {
        guard available else { return nil }
        MallocInterposerSwift.reset()
        _ = try workload.measure(count, begin: { MallocInterposerSwift.hook() }, end: { MallocInterposerSwift.unhook() })
        return Double(MallocInterposerSwift.getStatistics().mallocCount) / Double(count)
    }
}

// MARK: Interleaved measurement

struct Measured {
    let name: String
    /// Nanoseconds per operation, one per round.
    var rounds: [Double] = []
    var mallocs: Double?
    var note: String?
    var median: Double { Stats.median(rounds) }
}

struct Harness {
    let rounds: Int
    let batchNanoseconds: Double
    let mallocOperations: Int

    static let current = CommandLine.arguments.contains("--smoke")
        ? Harness(rounds: 3, batchNanoseconds: 2e6, mallocOperations: 20)
        : Harness(rounds: 21, batchNanoseconds: 20e6, mallocOperations: 2_000)

    /// Operations per batch so one batch takes about `batchNanoseconds`.
    func calibrate(_ workload: Workload) throws -> Int {
        let limit = workload.prepareEach == nil ? 50_000_000 : (rounds <= 3 ? 20 : 100)
        var count = 1
        while true {
            let elapsed = Double(try workload.measure(count))
            if elapsed >= batchNanoseconds || count >= limit { return count }
            let scale = elapsed <= 0 ? 16 : min(16, max(2, batchNanoseconds / elapsed))
            count = min(limit, Int(Double(count) * scale) + 1)
        }
    }

    func run(_ label: String, _ makers: [() throws -> Workload]) throws -> [String: Measured] {
        progress("· \(label): setting up \(makers.count) workloads")
        let workloads = try makers.map { try $0() }
        var counts: [Int] = []
        var results: [Measured] = []
        for workload in workloads {
            counts.append(try calibrate(workload))
            results.append(Measured(name: workload.name))
        }
        progress("· \(label): \(rounds) rounds")
        for round in 0..<rounds {
            // Rotate the order so no subject always runs first after a pause.
            for offset in 0..<workloads.count {
                let index = (offset + round) % workloads.count
                let elapsed = try workloads[index].measure(counts[index])
                results[index].rounds.append(Double(elapsed) / Double(counts[index]))
            }
        }
        for (index, workload) in workloads.enumerated() {
            results[index].mallocs = try Allocations.perOperation(workload, count: min(counts[index], mallocOperations))
            results[index].note = workload.note?()
        }
        return Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0) })
    }
}

// MARK: The table

struct Row {
    var comparison: String
    var value: String
    var target: String
    var verdict: String
    var detail: String
}

var rows: [Row] = []

func formatTime(_ nanoseconds: Double) -> String {
    if nanoseconds.isNaN { return "n/a" }
    if nanoseconds < 1_000 { return String(format: "%.1f ns", nanoseconds) }
    if nanoseconds < 1_000_000 { return String(format: "%.2f µs", nanoseconds / 1_000) }
    return String(format: "%.2f ms", nanoseconds / 1_000_000)
}

func formatMallocs(_ value: Double?) -> String {
    guard let value else { return "" }
    return value == value.rounded() ? "\(Int(value)) mallocs" : String(format: "%.2f mallocs", value)
}

/// The median over rounds of `a / b` in the same round.
func medianRatio(_ a: Measured, _ b: Measured) -> Double {
    Stats.median(zip(a.rounds, b.rounds).map { $0 / $1 })
}

/// A row comparing two measured workloads; `limit` is the target (ratio ≤ limit), if any.
@MainActor
func ratio(_ comparison: String, _ results: [String: Measured], _ numerator: String, _ denominator: String,
           limit: Double? = nil, zeroAllocations: Bool = false) {
    guard let a = results[numerator], let b = results[denominator] else {
        rows.append(Row(comparison: comparison, value: "n/a", target: "", verdict: "", detail: "not measured"))
        return
    }
    let value = medianRatio(a, b)
    var verdict = ""
    var target = ""
    if let limit {
        target = "≤ \(limit)×" + (zeroAllocations ? ", 0 mallocs" : "")
        var met = value <= limit
        if zeroAllocations, let mallocs = a.mallocs { met = met && mallocs == 0 }
        verdict = met ? "met" : "MISSED"
    }
    var detail = "\(formatTime(a.median)) vs \(formatTime(b.median))"
    if a.mallocs != nil || b.mallocs != nil {
        detail += " (\(formatMallocs(a.mallocs)) vs \(formatMallocs(b.mallocs)) per op)"
    }
    rows.append(Row(comparison: comparison, value: String(format: "%.2f", value), target: target, verdict: verdict, detail: detail))
}

/// A row dividing one ratio by another, both from the same `results` and each the median of
/// its per-round ratios (as `ratio` prints them): how much more the library slows down than
/// its floor does on the same change, the floor's own slowdown (caches, memory) divided out.
@MainActor
func ratioOfRatios(_ comparison: String, _ results: [String: Measured],
                   _ numerator: (String, String), over denominator: (String, String), limit: Double? = nil) {
    guard let a = results[numerator.0], let b = results[numerator.1],
          let c = results[denominator.0], let d = results[denominator.1] else {
        rows.append(Row(comparison: comparison, value: "n/a", target: "", verdict: "", detail: "not measured"))
        return
    }
    let top = medianRatio(a, b), bottom = medianRatio(c, d)
    let value = top / bottom
    rows.append(Row(comparison: comparison, value: String(format: "%.2f", value), target: limit.map { "≤ \($0)×" } ?? "",
                    verdict: limit.map { value <= $0 ? "met" : "MISSED" } ?? "",
                    detail: String(format: "%.2f vs %.2f", top, bottom)))
}

@MainActor
func absolute(_ comparison: String, _ results: [String: Measured], _ name: String, note: String = "") {
    guard let a = results[name] else { return }
    let parts = [note, a.mallocs.map { "\(formatMallocs($0)) per op" }, a.note].compactMap { $0 }.filter { !$0.isEmpty }
    rows.append(Row(comparison: comparison, value: formatTime(a.median), target: "", verdict: "", detail: parts.joined(separator: "; ")))
}

let harness = Harness.current
let started = Date()
// Before any store exists: the baseline of the stores group's thread count, which the idle
// group's store (run first) could otherwise raise with a monitor thread that outlives it.
let threadsAtStart = ManyStores.processThreads
progress("SQLiteDefaults ratio table (\(options.smoke ? "smoke" : "full") run); mallocs counted: \(Allocations.available)")

do {
    // Idle first, while this process has nothing else running.
    var idle: IdleCPU.Result?
    if options.wants("idle") {
        let seconds = options.smoke ? 1.0 : 10.0
        progress("· idle: one store with one observer, \(Int(seconds)) s")
        idle = try IdleCPU.measure(seconds: seconds)
    }
    // Many idle stores next, while the process's memory holds little else.
    var many: ManyStores.Result?
    if options.wants("stores") {
        let seconds = options.smoke ? 1.0 : 10.0
        progress("· stores: \(ManyStores.defaultCount) stores on distinct files, each observed, idle \(Int(seconds)) s")
        many = try ManyStores.measure(idleSeconds: seconds, threadsBefore: threadsAtStart)
    }

    if options.wants("get") {
        let r = try harness.run("get (cache hit)", [
            { try Workloads.getInt(.defaults) }, { try Workloads.getInt(.dictionary) }, { try Workloads.getInt(.userDefaults) },
            { try Workloads.getString(.defaults) }, { try Workloads.getString(.dictionary) }, { try Workloads.getString(.userDefaults) },
            { try Workloads.getCodable(.defaults) }, { try Workloads.getCodable(.dictionary) }, { try Workloads.getCodable(.userDefaults) },
        ])
        ratio("get Int, unchanged: SQLiteDefaults / Mutex-Dictionary", r, "get Int · SQLiteDefaults", "get Int · Mutex<Dictionary>", limit: 1.2, zeroAllocations: true)
        ratio("get String, unchanged: SQLiteDefaults / Mutex-Dictionary", r, "get String · SQLiteDefaults", "get String · Mutex<Dictionary>", limit: 1.2, zeroAllocations: true)
        ratio("get Codable, unchanged: SQLiteDefaults / Mutex-Dictionary", r, "get Codable · SQLiteDefaults", "get Codable · Mutex<Dictionary>", limit: 4)
        ratio("get Int: UserDefaults / SQLiteDefaults", r, "get Int · UserDefaults", "get Int · SQLiteDefaults")
        ratio("get String: UserDefaults / SQLiteDefaults", r, "get String · UserDefaults", "get String · SQLiteDefaults")
        ratio("get Codable: UserDefaults (data + JSONDecoder) / SQLiteDefaults", r, "get Codable · UserDefaults", "get Codable · SQLiteDefaults")
    }

    if options.wants("miss") {
        let coldRows = options.smoke ? 5_000 : 200_000
        let r = try harness.run("get (cache miss)", [
            { try Workloads.getAfterExternalWrite(codable: false) }, { try Workloads.getAfterExternalWrite(codable: true) },
            { try Workloads.getUncached(.defaults, rows: coldRows) }, { try Workloads.getUncached(.raw, rows: coldRows) },
        ])
        absolute("get Int right after an external write (decode from the refreshed row)", r, "get Int after external write · SQLiteDefaults")
        absolute("get Codable right after an external write (JSON decode)", r, "get Codable after external write · SQLiteDefaults")
        ratio("get Int never read before (SQL read): SQLiteDefaults / raw SQLite SELECT", r,
              "get Int uncached (SQL) · SQLiteDefaults", "get Int uncached (SQL) · raw SQLite")
    }

    if options.wants("set") {
        let r = try harness.run("set", [
            { try Workloads.setInt(.defaults) }, { try Workloads.setInt(.raw) }, { try Workloads.setIntBare() },
            { try Workloads.setIntWithoutMonitor() },
            { try Workloads.setString(.defaults) }, { try Workloads.setString(.raw) },
            { try Workloads.setCodable(.defaults) }, { try Workloads.setCodable(.raw) },
            { try Workloads.transaction100(.defaults) }, { try Workloads.transaction100(.raw) },
            { try Workloads.modify(.defaults) }, { try Workloads.modify(.raw) },
            { try Workloads.setInt(.userDefaults) }, { try Workloads.setInt(.userDefaultsSynchronized) },
            { try Workloads.setString(.userDefaults) }, { try Workloads.setString(.userDefaultsSynchronized) },
            { try Workloads.setCodable(.userDefaults) }, { try Workloads.setCodable(.userDefaultsSynchronized) },
        ])
        ratio("set Int, autocommit: SQLiteDefaults / raw SQLite upsert", r, "set Int · SQLiteDefaults", "set Int · raw SQLite", limit: 1.15)
        ratio("set Int, autocommit: SQLiteDefaults / bare-table upsert", r, "set Int · SQLiteDefaults", "set Int · raw SQLite, bare table", limit: 1.7)
        // What the library's schema (change log, triggers) costs by itself, library code aside.
        ratio("  diagnosis: raw SQLite same schema / bare table", r, "set Int · raw SQLite", "set Int · raw SQLite, bare table")
        ratio("set Int with the external monitor on / off", r, "set Int · SQLiteDefaults", "set Int · SQLiteDefaults, no external monitor", limit: 1.1)
        ratio("  diagnosis: set Int with externalChangeDetection = .off / raw SQLite", r, "set Int · SQLiteDefaults, no external monitor", "set Int · raw SQLite")
        ratio("set String, autocommit: SQLiteDefaults / raw SQLite upsert", r, "set String · SQLiteDefaults", "set String · raw SQLite", limit: 1.15)
        ratio("set Codable, autocommit: SQLiteDefaults / raw SQLite (JSONEncoder + upsert)", r, "set Codable · SQLiteDefaults", "set Codable · raw SQLite")
        ratio("set 100 keys in one transaction (per key): SQLiteDefaults / raw SQLite", r,
              "set 100 keys in one transaction · SQLiteDefaults", "set 100 keys in one transaction · raw SQLite", limit: 1.3)
        ratio("modify Int (+1): SQLiteDefaults / raw SQLite (BEGIN IMMEDIATE, SELECT, upsert, COMMIT)", r,
              "modify Int (+1) · SQLiteDefaults", "modify Int (+1) · raw SQLite")
        ratio("set Int: UserDefaults, no synchronize (not durable) / SQLiteDefaults", r, "set Int · UserDefaults", "set Int · SQLiteDefaults")
        ratio("set Int: UserDefaults + synchronize() / SQLiteDefaults", r, "set Int · UserDefaults+synchronize", "set Int · SQLiteDefaults")
        ratio("set String: UserDefaults + synchronize() / SQLiteDefaults", r, "set String · UserDefaults+synchronize", "set String · SQLiteDefaults")
        ratio("set Codable: UserDefaults + synchronize() / SQLiteDefaults", r, "set Codable · UserDefaults+synchronize", "set Codable · SQLiteDefaults")
    }

    if options.wants("notify") {
        let r = try harness.run("notify", [
            { try Workloads.localNotify(.defaults) }, { try Workloads.localNotify(.raw) }, { try Workloads.updatesDelivery() },
            { try Workloads.rawAsyncStreamDelivery() },
        ])
        ratio("local write → observer callback: SQLiteDefaults / raw SQLite set + update hook callback", r,
              "set → observer callback · SQLiteDefaults", "set → update hook callback · raw SQLite", limit: 1.5)
        ratio("local write → updates() consumer task: SQLiteDefaults / raw SQLite set + hook", r,
              "set → updates() consumer · SQLiteDefaults", "set → update hook callback · raw SQLite", limit: 1.5)
        ratio("  floor: raw SQLite set, then yield → AsyncStream consumer task / raw SQLite set + hook", r,
              "set → AsyncStream consumer · raw SQLite", "set → update hook callback · raw SQLite")
        ratio("  local write → updates() consumer task: SQLiteDefaults / the floor (raw set, then AsyncStream yield)", r,
              "set → updates() consumer · SQLiteDefaults", "set → AsyncStream consumer · raw SQLite")
    }

    if options.wants("observers") {
        let observers = options.smoke ? 1_000 : 10_000
        let r = try harness.run("observers", [
            { try Workloads.setWithObservers(0) }, { try Workloads.setWithObservers(observers) },
        ])
        ratio("set with \(observers) observers on other keys / with none", r,
              "set Int · \(observers) observers on other keys", "set Int · 0 observers on other keys", limit: 1.1)
    }

    if options.wants("scale") {
        let large = RunMode.largeTable
        progress("· scale: filling tables of 1000 and \(large) keys")
        // Gets and sets use tables of their own: a set drops the key's decoded value, so the
        // next get of that key decodes again, which would blur what is measured.
        let small = try Workloads.LargeTable(rows: 1_000)
        let big = try Workloads.LargeTable(rows: large)
        let smallWritten = try Workloads.LargeTable(rows: 1_000)
        let bigWritten = try Workloads.LargeTable(rows: large)
        let r = try harness.run("scale", [
            { Workloads.scaleGetRandom(small) }, { Workloads.scaleGetRandom(big) },
            { Workloads.scaleDictionaryGetRandom(rows: 1_000) }, { Workloads.scaleDictionaryGetRandom(rows: large) },
            { Workloads.scaleDictionaryGetRandomThroughKeys(rows: 1_000) }, { Workloads.scaleDictionaryGetRandomThroughKeys(rows: large) },
            { Workloads.scaleGetHot(small) }, { Workloads.scaleGetHot(big) },
            { Workloads.scaleSetRandom(smallWritten) }, { Workloads.scaleSetRandom(bigWritten) },
            { Workloads.scaleSetHot(smallWritten) }, { Workloads.scaleSetHot(bigWritten) },
            { try Workloads.scaleRawSetRandom(rows: 1_000) }, { try Workloads.scaleRawSetRandom(rows: large) },
        ])
        ratio("get random key: \(large) keys / 1000 keys", r, "get random key · \(large) keys", "get random key · 1000 keys", limit: 1.5)
        ratio("  floor: Mutex-Dictionary get random key, \(large) keys / 1000 keys", r,
              "get random key · Mutex<Dictionary> · \(large) keys", "get random key · Mutex<Dictionary> · 1000 keys")
        // A random key of a large table misses the CPU caches whoever holds it: the target is
        // on what the library adds to that slowdown.
        ratioOfRatios("get random key slowdown (\(large)/1000) over the Mutex-Dictionary floor's own slowdown", r,
                      ("get random key · \(large) keys", "get random key · 1000 keys"),
                      over: ("get random key · Mutex<Dictionary> · \(large) keys", "get random key · Mutex<Dictionary> · 1000 keys"),
                      limit: 1.5)
        ratio("  floor: Mutex-Dictionary get random key through a DefaultsKey object, \(large) keys / 1000 keys", r,
              "get random key · Mutex<Dictionary> through DefaultsKey · \(large) keys", "get random key · Mutex<Dictionary> through DefaultsKey · 1000 keys")
        // The API's keys are objects: a get loads one, wherever it lies. Over that floor, the
        // slowdown is what the library's own cache adds.
        ratioOfRatios("get random key slowdown (\(large)/1000) over the floor through DefaultsKey objects", r,
                      ("get random key · \(large) keys", "get random key · 1000 keys"),
                      over: ("get random key · Mutex<Dictionary> through DefaultsKey · \(large) keys",
                             "get random key · Mutex<Dictionary> through DefaultsKey · 1000 keys"),
                      limit: 1.5)
        ratio("get one key: \(large) keys / 1000 keys", r, "get one key · \(large) keys", "get one key · 1000 keys", limit: 1.5)
        ratio("set random key: \(large) keys / 1000 keys", r, "set random key · \(large) keys", "set random key · 1000 keys", limit: 1.5)
        ratio("  floor: raw SQLite set random key, \(large) keys / 1000 keys", r,
              "set random key · raw SQLite · \(large) keys", "set random key · raw SQLite · 1000 keys")
        ratio("set one key: \(large) keys / 1000 keys", r, "set one key · \(large) keys", "set one key · 1000 keys", limit: 1.5)
    }

    if options.wants("external") {
        let warmup = options.smoke ? 3 : 20
        // Isolated writes (each noticed before the next lands), then a stream with no pause
        // between commits, where changes land while the monitor is still reading earlier ones.
        let runs: [(name: String, writes: Int, interval: Int, median: Double)] = [
            ("isolated", options.smoke ? 30 : 1_000, options.smoke ? 2_000 : 5_000, 100),
            ("back to back", options.smoke ? 30 : 2_000, 0, 300),
        ]
        var ownMedians: [String: Double] = [:]
        for run in runs {
            for writer in [ExternalLatency.Writer.defaults, .sql] {
                progress("· external: \(run.writes) writes from a second process, \(run.name) (\(writer.rawValue))")
                let result = try ExternalLatency.measure(writes: run.writes, intervalMicroseconds: run.interval,
                                                         warmup: warmup, writer: writer)
                let who = writer == .defaults ? "SQLiteDefaults writer" : "plain-SQL writer"
                let pace = run.interval > 0 ? String(format: "%g ms apart", Double(run.interval) / 1_000) : "no pause"
                let detail = "\(result.microseconds.count) writes \(pace) (\(writer == .defaults ? "another DefaultsStore process" : "raw SQL upsert from another process")), \(result.coalesced) heard only with a newer value, \(result.missing) never"
                let targeted = writer == .defaults
                rows.append(Row(comparison: "external process write, \(run.name) (\(who)) → callback, median", value: String(format: "%.3f ms", result.median / 1_000),
                                target: targeted ? String(format: "≤ %g ms", run.median / 1_000) : "",
                                verdict: targeted ? (result.median <= run.median && result.missing == 0 ? "met" : "MISSED") : "",
                                detail: detail))
                rows.append(Row(comparison: "external process write, \(run.name) (\(who)) → callback, p99", value: String(format: "%.3f ms", result.p99 / 1_000),
                                target: targeted ? "≤ 2 ms" : "", verdict: targeted ? (result.p99 <= 2_000 ? "met" : "MISSED") : "",
                                detail: String(format: "max %.3f ms", (result.microseconds.max() ?? .nan) / 1_000)))
                if writer == .defaults { ownMedians[run.name] = result.median }
            }
            guard run.interval > 0 else { continue }
            // The floor of an isolated write: the same writer, heard by the least an
            // inotify-based reader can do (see ExternalLatency.Reader.rawInotify).
            progress("· external: \(run.writes) writes, \(run.name), heard by the raw inotify + SQLite floor reader")
            let floor = try ExternalLatency.measure(writes: run.writes, intervalMicroseconds: run.interval,
                                                    warmup: warmup, writer: .defaults, reader: .rawInotify)
            rows.append(Row(comparison: "  floor: external process write, \(run.name) (SQLiteDefaults writer) → raw inotify + SQLite reader, median",
                            value: String(format: "%.3f ms", floor.median / 1_000), target: "", verdict: "",
                            detail: String(format: "p99 %.3f ms; %d never", floor.p99 / 1_000, floor.missing)))
            if let own = ownMedians[run.name] {
                rows.append(Row(comparison: "  external process write, \(run.name): SQLiteDefaults observer / floor reader, medians", value: String(format: "%.2f", own / floor.median),
                                target: "", verdict: "", detail: String(format: "%.3f ms over the floor", (own - floor.median) / 1_000)))
            }
        }
    }

    if let idle {
        rows.append(Row(comparison: String(format: "idle store with an observer, CPU over %.0f s", idle.seconds),
                        value: String(format: "%.1f ms", idle.cpuMilliseconds), target: "~0", verdict: idle.cpuMilliseconds < 20 * idle.seconds / 10 ? "met" : "MISSED",
                        detail: String(format: "%.4f%% of a core, %d wake-ups", idle.cpuMilliseconds / (idle.seconds * 10), idle.voluntarySwitches)))
    }

    if let many {
        let label = "\(many.stores) open stores (each observed, idle)"
        rows.append(Row(comparison: "\(label): threads added (monitor threads)", value: "\(many.threadsAdded)", target: "≤ 2",
                        verdict: many.threadsAdded <= 2 ? "met" : "MISSED",
                        detail: "\(many.threadsBefore) before any store, \(many.threadsWithOne) with one of these, \(many.threads) with all"))
        rows.append(Row(comparison: "\(label): descriptors per store", value: String(format: "%.2f", many.descriptorsPerStore), target: "",
                        verdict: "", detail: "\(many.descriptors) in all (limit \(many.descriptorLimit)), \(many.inotifyInstances) inotify instance(s)"))
        rows.append(Row(comparison: "\(label): memory per idle store", value: String(format: "%.1f KiB", many.residentBytesPerStore / 1_024),
                        target: "", verdict: "", detail: "resident set growth / stores; open + observe \(formatTime(many.openMicroseconds * 1_000)) per store"))
        // Against one store idle over the same time (the idle group), so the process's own
        // background CPU counts on both sides; without that group there is nothing to divide by.
        let cpu = String(format: "%.2f ms over %.0f s, %d wake-ups", many.idleCPUMilliseconds, many.idleSeconds, many.idleWakeups)
        if let idle, idle.seconds == many.idleSeconds {
            let value = idle.cpuMilliseconds > 0 ? String(format: "%.2f", many.idleCPUMilliseconds / idle.cpuMilliseconds)
                : (many.idleCPUMilliseconds > 0 ? "inf" : "0.00")
            rows.append(Row(comparison: "\(label): idle CPU / one idle store's", value: value, target: "≤ 2×",
                            verdict: many.idleCPUMilliseconds <= 2 * idle.cpuMilliseconds ? "met" : "MISSED",
                            detail: cpu + String(format: " vs %.2f ms, %d wake-ups", idle.cpuMilliseconds, idle.voluntarySwitches)))
        } else {
            rows.append(Row(comparison: "\(label): idle CPU / one idle store's", value: "n/a", target: "≤ 2×", verdict: "",
                            detail: cpu + "; run the idle group too for the ratio"))
        }
    }

    if options.wants("memory") {
        let count = options.smoke ? 1_000 : 10_000
        let bytes: Double
        if Allocations.available {
            // Live bytes requested from malloc (the interposer's counts), without malloc's own overhead.
            MallocInterposerSwift.reset()
            MallocInterposerSwift.hook()
            defer { MallocInterposerSwift.unhook() }
            bytes = try Workloads.memoryPerObserver(count: count) {
                let statistics = MallocInterposerSwift.getStatistics()
                return statistics.mallocBytesCount - statistics.freeBytesCount
            }
        } else {
            bytes = try Workloads.memoryPerObserver(count: count)
        }
        rows.append(Row(comparison: "memory per observer (\(count) observers of distinct keys)", value: String(format: "%.0f B", bytes),
                        target: "", verdict: "", detail: "live heap bytes per observer, the observed key's cache entry and token included"))
    }
} catch {
    progress("Ratios: \(error)")
    exit(1)
}

// MARK: Print

print(ReportHeader.line(title: "SQLiteDefaults benchmark ratios", started: started, smoke: options.smoke))
print("Ratios are medians over \(harness.rounds) interleaved rounds; lower is better for SQLiteDefaults except the UserDefaults / SQLiteDefaults rows.")
print("")
print("| comparison | ratio or value | target | | medians per op |")
print("| --- | ---: | --- | --- | --- |")
for row in rows {
    print("| \(row.comparison) | \(row.value) | \(row.target) | \(row.verdict) | \(row.detail) |")
}
progress(String(format: "done in %.0f s", Date().timeIntervalSince(started)))
