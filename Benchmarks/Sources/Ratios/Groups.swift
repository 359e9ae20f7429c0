import BenchmarkSupport
import Foundation
import MallocInterposerSwift

/// The table's groups: each measures its subjects and appends its rows, in table order.
@MainActor
enum Groups {
    /// One store with one observer, idle: run first, while this process has nothing else running.
    static func idle(smoke: Bool) throws -> IdleCPU.Result {
        let seconds = smoke ? 1.0 : 10.0
        progress("· idle: one store with one observer, \(Int(seconds)) s")
        return try IdleCPU.measure(seconds: seconds)
    }

    /// Many idle stores, next, while the process's memory holds little else.
    static func stores(smoke: Bool, threadsBefore: Int) throws -> ManyStores.Result {
        let seconds = smoke ? 1.0 : 10.0
        progress("· stores: \(ManyStores.defaultCount) stores on distinct files, each observed, idle \(Int(seconds)) s")
        return try ManyStores.measure(idleSeconds: seconds, threadsBefore: threadsBefore)
    }

    static func get(_ harness: Harness) throws {
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

    static func miss(_ harness: Harness, smoke: Bool) throws {
        let coldRows = smoke ? 5_000 : 200_000
        let r = try harness.run("get (cache miss)", [
            { try Workloads.getAfterExternalWrite(codable: false) }, { try Workloads.getAfterExternalWrite(codable: true) },
            { try Workloads.getUncached(.defaults, rows: coldRows) }, { try Workloads.getUncached(.raw, rows: coldRows) },
        ])
        absolute("get Int right after an external write (decode from the refreshed row)", r, "get Int after external write · SQLiteDefaults")
        absolute("get Codable right after an external write (JSON decode)", r, "get Codable after external write · SQLiteDefaults")
        ratio("get Int never read before (SQL read): SQLiteDefaults / raw SQLite SELECT", r,
              "get Int uncached (SQL) · SQLiteDefaults", "get Int uncached (SQL) · raw SQLite")
    }

    static func set(_ harness: Harness) throws {
        let r = try harness.run("set", [
            { try Workloads.setInt(.defaults) }, { try Workloads.setInt(.raw) }, { try Workloads.setIntBare() },
            { try Workloads.setIntBare(pageSize: RawSQLite.libraryPageSize) },
            { try Workloads.setIntWithoutMonitor() }, { try Workloads.setIntDeclared() }, { try Workloads.setIntAsync() },
            { try Workloads.setIntAsyncWithoutMonitor() }, { try Workloads.setIntAsyncConcurrent() }, { Workloads.threadRoundTrip() },
            { try Workloads.setString(.defaults) }, { try Workloads.setString(.raw) },
            { try Workloads.setCodable(.defaults) }, { try Workloads.setCodable(.raw) },
            { try Workloads.transaction100(.defaults) }, { try Workloads.transaction100(.raw) },
            { try Workloads.modify(.defaults) }, { try Workloads.modify(.raw) },
            { try Workloads.setInt(.userDefaults) }, { try Workloads.setInt(.userDefaultsSynchronized) },
            { try Workloads.setString(.userDefaults) }, { try Workloads.setString(.userDefaultsSynchronized) },
            { try Workloads.setCodable(.userDefaults) }, { try Workloads.setCodable(.userDefaultsSynchronized) },
        ])
        ratio("set Int, autocommit: SQLiteDefaults / raw SQLite upsert", r, "set Int · SQLiteDefaults", "set Int · raw SQLite", limit: 1.15)
        ratio("set Int, autocommit: SQLiteDefaults / bare-table upsert", r, "set Int · SQLiteDefaults", "set Int · raw SQLite, bare table", limit: 1.8)
        // What the library's schema (change log, triggers) costs by itself, library code aside.
        ratio("  diagnosis: raw SQLite same schema / bare table", r, "set Int · raw SQLite", "set Int · raw SQLite, bare table")
        // The library makes files with 2,048-byte pages (the bare table has SQLite's 4,096): the
        // same comparison with the page size set aside, and what the page size alone buys.
        let smallPages = "set Int · raw SQLite, bare table, \(RawSQLite.libraryPageSize)-byte pages"
        ratio("  diagnosis: SQLiteDefaults / bare table with the library's \(RawSQLite.libraryPageSize)-byte pages", r, "set Int · SQLiteDefaults", smallPages)
        ratio("  diagnosis: raw SQLite same schema / bare table with the library's pages", r, "set Int · raw SQLite", smallPages)
        ratio("  diagnosis: bare table, \(RawSQLite.libraryPageSize)-byte pages / SQLite's default 4,096", r, smallPages, "set Int · raw SQLite, bare table")
        ratio("set Int: async (on the store's thread) / synchronous", r, "set Int · SQLiteDefaults, async", "set Int · SQLiteDefaults", limit: 1.3)
        // One task writing alone waits for two wake-ups per set (the store's thread, then a pool
        // thread for the task): their floor, measured beside it.
        absolute("  floor: a task's round trip to a sleeping thread and back (no SQLite)", r, "round trip to a thread and back · floor")
        // The same with no monitor on either side: what the hop costs when the monitor's wake
        // after each commit does not compete with it for the cores.
        ratio("  diagnosis: async / synchronous, both with externalChangeDetection = .off", r,
              "set Int · SQLiteDefaults, async, no external monitor", "set Int · SQLiteDefaults, no external monitor")
        ratio("set Int: async from 8 tasks at once (per set) / synchronous", r,
              "set Int · SQLiteDefaults, async, 8 tasks", "set Int · SQLiteDefaults", limit: 1.3)
        ratio("set Int with the external monitor on / off", r, "set Int · SQLiteDefaults", "set Int · SQLiteDefaults, no external monitor", limit: 1.1)
        ratio("  diagnosis: set Int with externalChangeDetection = .off / raw SQLite", r, "set Int · SQLiteDefaults, no external monitor", "set Int · raw SQLite")
        ratio("set Int of a declared key (10,000 declared) / of an undeclared key", r,
              "set Int · SQLiteDefaults, declared key (10,000 declared)", "set Int · SQLiteDefaults", limit: 1.1)
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

    static func notify(_ harness: Harness) throws {
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

    static func observers(_ harness: Harness, smoke: Bool) throws {
        let observers = smoke ? 1_000 : 10_000
        let r = try harness.run("observers", [
            { try Workloads.setWithObservers(0) }, { try Workloads.setWithObservers(observers) },
        ])
        ratio("set with \(observers) observers on other keys / with none", r,
              "set Int · \(observers) observers on other keys", "set Int · 0 observers on other keys", limit: 1.1)
    }

    static func scale(_ harness: Harness) throws {
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

    static func external(smoke: Bool) throws {
        let warmup = smoke ? 3 : 20
        // Isolated writes (each noticed before the next lands), then a stream with no pause
        // between commits, where changes land while the monitor is still reading earlier ones.
        let runs: [(name: String, writes: Int, interval: Int, median: Double)] = [
            ("isolated", smoke ? 30 : 1_000, smoke ? 2_000 : 5_000, 100),
            ("back to back", smoke ? 30 : 2_000, 0, 300),
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

    /// Another connection's transaction of many keys, read by a change feed and by observers,
    /// against a raw statement reading the same log rows (see ExternalBurst).
    static func burst(smoke: Bool) throws {
        let keys = smoke ? 2_000 : 100_000
        progress("· burst: another connection commits \(keys) keys in one transaction")
        let result = try ExternalBurst.measure(keys: keys)
        rows.append(Row(comparison: "external burst of \(keys) keys → changes(since:) consumer has all / raw statement reading the same log rows",
                        value: String(format: "%.2f", result.feedNanoseconds / result.rawNanoseconds), target: "≤ 1.5",
                        verdict: result.feedNanoseconds <= 1.5 * result.rawNanoseconds ? "met" : "MISSED",
                        detail: String(format: "%@ / %@", formatTime(result.feedNanoseconds), formatTime(result.rawNanoseconds))))
        rows.append(Row(comparison: "  external burst of \(keys) keys → changes() consumer (observers of every key) / the same raw read",
                        value: String(format: "%.2f", result.observerNanoseconds / result.rawNanoseconds), target: "", verdict: "",
                        detail: String(format: "%@ / %@", formatTime(result.observerNanoseconds), formatTime(result.rawNanoseconds))))
        rows.append(Row(comparison: "  the same feed reading the burst back once it is in the log / the same raw read",
                        value: String(format: "%.2f", ExternalBurst.catchUp / result.rawNanoseconds), target: "", verdict: "",
                        detail: String(format: "%@ / %@", formatTime(ExternalBurst.catchUp), formatTime(result.rawNanoseconds))))
    }

    static func idleRows(_ idle: IdleCPU.Result) {
        rows.append(Row(comparison: String(format: "idle store with an observer, CPU over %.0f s", idle.seconds),
                        value: String(format: "%.1f ms", idle.cpuMilliseconds), target: "~0", verdict: idle.cpuMilliseconds < 20 * idle.seconds / 10 ? "met" : "MISSED",
                        detail: String(format: "%.4f%% of a core, %d wake-ups", idle.cpuMilliseconds / (idle.seconds * 10), idle.voluntarySwitches)))
    }

    static func storesRows(_ many: ManyStores.Result, idle: IdleCPU.Result?) {
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

    static func memory(smoke: Bool) throws {
        let count = smoke ? 1_000 : 10_000
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
}
