import DefaultsTestSupport
import Foundation
import SQLiteDefaults

/// The processes that the reliability suite starts, kills and starves. Each command opens a
/// store on a file, does one job, and reports on stdout in lines the tests parse.
///
///     ReliabilityHelper soak-writer DB ID SECONDS SEED   random set/modify/remove/transaction work on shared
///                                                        keys; ends with one "summary …" line
///     ReliabilityHelper soak-observer DB MODE            MODE callback (observe(_:)) or stream (changes());
///                                                        prints "ready"; on stdin "dump" prints the last value
///                                                        seen per key, then "end"; "quit" exits
///     ReliabilityHelper crash-writer DB SEED             sets, modifies and multi-key transactions forever;
///                                                        prints "seq N", "counter N", "txbegin N", "tx N"
///     ReliabilityHelper disk-full DB LIMIT               writes under RLIMIT_FSIZE = LIMIT bytes (SIGXFSZ
///                                                        ignored); prints "name value" result lines
///     ReliabilityHelper disk-full-open DB                creates a database under RLIMIT_FSIZE = 0; prints "open …"
///     ReliabilityHelper probe DB PREFIX N                opens, reads PREFIX0…PREFIX(N-1), keys(), writes one
///                                                        key; prints "open …", "reads …", "write …"
///     ReliabilityHelper write-and-die DB N               writes N keys, then _exit(0): the -wal stays behind
///     ReliabilityHelper standard NAME                    umask 0, opens standard(name:), writes a key,
///                                                        prints the path, stays open until a line on stdin
///     ReliabilityHelper open-relative PATH               opens a relative path, writes a key, prints "ok"
@main
struct ReliabilityHelper {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            try run(arguments)
        } catch {
            FileHandle.standardError.write(Data("ReliabilityHelper: \(error)\n".utf8))
            exit(2)
        }
    }

    static func run(_ arguments: [String]) throws {
        guard let command = arguments.first else { throw usage() }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "soak-writer":
            guard rest.count == 4, let id = Int(rest[1]), let seconds = Double(rest[2]), let seed = UInt64(rest[3]) else { throw usage() }
            var writer = try SoakWriter(path: rest[0], id: id, seconds: seconds, seed: seed)
            try writer.run()
        case "soak-observer":
            guard rest.count == 2 else { throw usage() }
            try soakObserver(path: rest[0], mode: rest[1])
        case "crash-writer":
            guard rest.count == 2, let seed = UInt64(rest[1]) else { throw usage() }
            try crashWriter(path: rest[0], seed: seed)
        case "disk-full":
            guard rest.count == 2, let limit = UInt64(rest[1]) else { throw usage() }
            try diskFull(path: rest[0], limit: limit)
        case "disk-full-open":
            // A new database under a file size limit of 0 bytes: not even its header fits.
            guard rest.count == 1 else { throw usage() }
            signal(SIGXFSZ, SIG_IGN)
            var limits = rlimit()
            getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits)
            limits.rlim_cur = 0
            setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits)
            do {
                let store = try DefaultsStore(path: rest[0])
                try store.set(1, for: DefaultsKey<Int>("k", default: 0))
                say("open ok")
            } catch let error as DefaultsError {
                say("open \(error.code.rawValue) \(error.message)")
            }
        case "probe":
            guard rest.count == 3, let count = Int(rest[2]) else { throw usage() }
            probe(path: rest[0], prefix: rest[1], count: count)
        case "write-and-die":
            guard rest.count == 2, let count = Int(rest[1]) else { throw usage() }
            let store = try DefaultsStore(path: rest[0])
            for index in 0..<count {
                try store.set("stray-\(index)-" + String(repeating: "w", count: 200), for: DefaultsKey<String>("key.\(index)", default: ""))
            }
            say("written")
            fflush(nil)
            _exit(0)
        case "standard":
            guard rest.count == 1 else { throw usage() }
            umask(0)
            let store = try DefaultsStore.standard(name: rest[0])
            try store.set("secret", for: DefaultsKey<String>("token", default: ""))
            say(store.path ?? "")
            _ = readLine()  // stay open (with -wal and -shm) until told
        case "open-relative":
            guard rest.count == 1 else { throw usage() }
            let store = try DefaultsStore(path: rest[0])
            try store.set("on disk", for: DefaultsKey<String>("where", default: ""))
            say("ok")
        default:
            throw usage()
        }
    }

    static func usage() -> DefaultsError {
        DefaultsError(.sqlite, "usage: ReliabilityHelper soak-writer|soak-observer|crash-writer|disk-full|probe|write-and-die|standard|open-relative ARGS")
    }
}

/// Prints a line and flushes it at once: a line on stdout is an acknowledgement the test
/// may read the moment before this process is killed.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

// MARK: - Soak

struct Deliberate: Error {}

/// Keys of the soak (all under `soak.`):
/// - `counter.0…3`: every writer adds 1 with `modify`; the sum of the writers' counts must match.
/// - `tx.total` and `tx.w<ID>`: a transaction adds 1 to both and sets `pair.a` = `pair.b`.
/// - `shared.0…7`: set to "w<ID>-<n>" or removed by anyone.
/// - `own.<ID>`: only writer ID sets it, to its running sequence number.
/// - `ghost`: written only inside transactions that roll back; nobody may ever see it.
struct SoakWriter {
    let store: DefaultsStore
    let id: Int
    let seconds: Double
    var random: SeededRandom

    init(path: String, id: Int, seconds: Double, seed: UInt64) throws {
        store = try DefaultsStore(path: path)
        self.id = id
        self.seconds = seconds
        random = SeededRandom(seed: seed)
    }

    mutating func run() throws {
        let counters = (0..<4).map { DefaultsKey<Int>("soak.counter.\($0)", default: 0) }
        let shared = (0..<8).map { DefaultsKey<String?>("soak.shared.\($0)") }
        let total = DefaultsKey<Int>("soak.tx.total", default: 0)
        let mine = DefaultsKey<Int>("soak.tx.w\(id)", default: 0)
        let pairA = DefaultsKey<String>("soak.pair.a", default: "")
        let pairB = DefaultsKey<String>("soak.pair.b", default: "")
        let own = DefaultsKey<Int>("soak.own.\(id)", default: 0)
        let ghost = DefaultsKey<String?>("soak.ghost")

        var increments = [0, 0, 0, 0]
        var transactions = 0, rollbacks = 0, savepointRollbacks = 0, sets = 0, removes = 0
        var sequence = 0, errors = 0
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            sequence += 1
            let roll = Int.random(in: 0..<100, using: &random)
            do {
                switch roll {
                case 0..<30:
                    let index = Int.random(in: 0..<4, using: &random)
                    try store.modify(counters[index]) { $0 += 1 }
                    increments[index] += 1
                case 30..<50:
                    try store.set("w\(id)-\(sequence)", for: shared[Int.random(in: 0..<8, using: &random)])
                    sets += 1
                case 50..<58:
                    try store.remove(shared[Int.random(in: 0..<8, using: &random)])
                    removes += 1
                case 58..<73:
                    let label = "w\(id)-\(sequence)"
                    let touched = shared[Int.random(in: 0..<8, using: &random)]
                    try store.transaction { tx in
                        try tx.set(try tx.value(for: total) + 1, for: total)
                        try tx.set(try tx.value(for: mine) + 1, for: mine)
                        try tx.set(label, for: pairA)
                        try tx.set(label + "-first", for: touched)
                        try tx.set(label, for: pairB)
                        try tx.set(label, for: touched)  // two writes, one notification
                    }
                    transactions += 1
                case 73..<78:
                    do {
                        try store.transaction { tx in
                            try tx.set("ghost-w\(id)-\(sequence)", for: ghost)
                            try tx.set(try tx.value(for: total) + 1000, for: total)
                            throw Deliberate()
                        }
                    } catch is Deliberate {
                        rollbacks += 1
                    }
                case 78..<83:
                    // The outer transaction commits; the nested one (a savepoint) rolls back.
                    let label = "w\(id)-\(sequence)"
                    try store.transaction { tx in
                        try tx.set(try tx.value(for: total) + 1, for: total)
                        try tx.set(try tx.value(for: mine) + 1, for: mine)
                        try tx.set(label, for: pairA)
                        try tx.set(label, for: pairB)
                        do {
                            try store.transaction { _ in
                                try store.set("ghost-nested-w\(id)-\(sequence)", for: ghost)
                                try store.modify(counters[0]) { $0 += 1000 }
                                throw Deliberate()
                            }
                        } catch is Deliberate {}
                    }
                    transactions += 1
                    savepointRollbacks += 1
                default:
                    try store.set(sequence, for: own)
                    sets += 1
                }
            } catch {
                errors += 1
                FileHandle.standardError.write(Data("writer \(id): operation \(roll) failed: \(error)\n".utf8))
            }
        }
        // The last write of `own` says how far this writer got, acknowledged.
        do { try store.set(sequence, for: own) } catch { errors += 1 }
        say("summary id=\(id) ops=\(sequence) c0=\(increments[0]) c1=\(increments[1]) c2=\(increments[2]) c3=\(increments[3]) tx=\(transactions) rollbacks=\(rollbacks) savepoints=\(savepointRollbacks) sets=\(sets) removes=\(removes) own=\(sequence) errors=\(errors)")
    }
}

/// What an observer process heard: the last value per key, how many notifications, and
/// anything it should never have heard.
final class Heard: Sendable {
    private struct State {
        var last: [String: String] = [:]
        var notifications = 0
        var ghosts = 0
        var regressions = 0
        var counterValues: [String: Int64] = [:]
    }
    private let state = Locked(State())

    func record(_ change: AnyDefaultsChange) {
        state.withLock { state in
            state.notifications += 1
            state.last[change.key] = canonical(change.newValue)
            if change.key == "soak.ghost" { state.ghosts += 1 }
            // Counters only grow: delivery in commit order never shows an older value after a newer one.
            if change.key.hasPrefix("soak.counter.") || change.key == "soak.tx.total" {
                if case .integer(let number)? = change.newValue {
                    if let previous = state.counterValues[change.key], number <= previous { state.regressions += 1 }
                    state.counterValues[change.key] = number
                } else {
                    state.regressions += 1
                }
            }
        }
    }

    func dump() -> String {
        state.withLock { state in
            var lines = state.last.sorted { $0.key < $1.key }.map { "value \($0.key) \($0.value)" }
            lines.append("stats notifications=\(state.notifications) ghosts=\(state.ghosts) regressions=\(state.regressions)")
            lines.append("end")
            return lines.joined(separator: "\n")
        }
    }
}

func soakObserver(path: String, mode: String) throws {
    let store = try DefaultsStore(path: path)
    let heard = Heard()
    var token: DefaultsObservation?
    var task: Task<Void, Never>?
    switch mode {
    case "callback":
        token = store.observe { heard.record($0) }
    case "stream":
        let stream = store.changes()  // registered now, before "ready"
        task = Task.detached {
            for await change in stream { heard.record(change) }
        }
    default:
        throw ReliabilityHelper.usage()
    }
    say("ready")
    while let line = readLine() {
        switch line {
        case "dump": say(heard.dump())
        case "quit":
            token?.cancel()
            task?.cancel()
            return
        default: break
        }
    }
    _ = store
}

// MARK: - Crash loop

/// Runs until killed. Every line is printed after the call it reports has returned, so a
/// line on stdout is an acknowledged write; "txbegin N" is printed from inside transaction N.
func crashWriter(path: String, seed: UInt64) throws {
    var random = SeededRandom(seed: seed)
    let store = try DefaultsStore(path: path)
    let sequenceKey = DefaultsKey<Int>("crash.seq", default: 0)
    let counter = DefaultsKey<Int>("crash.counter", default: 0)
    let txKeys = (0..<20).map { DefaultsKey<Int>("crash.tx.\($0)", default: 0) }
    let payload = DefaultsKey<Data>("crash.tx.payload", default: Data())
    let removable = DefaultsKey<Int?>("crash.removable")
    var sequence = try store.value(for: sequenceKey)
    var transaction = try store.value(for: txKeys[0])
    say("open")
    while true {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            sequence += 1
            try store.set(sequence, for: sequenceKey)
            say("seq \(sequence)")
        case 1:
            let value = try store.modify(counter) { value -> Int in value += 1; return value }
            say("counter \(value)")
        case 2:
            let number = transaction + 1
            let size = Int.random(in: 1...64, using: &random) * 4096  // up to 64 pages: many WAL frames
            try store.transaction { tx in
                for (index, key) in txKeys.enumerated() {
                    try tx.set(number, for: key)
                    if index == 10 {
                        say("txbegin \(number)")
                        try tx.set(Data(repeating: UInt8(truncatingIfNeeded: number), count: size), for: payload)
                        usleep(UInt32.random(in: 0...2_000, using: &random))
                    }
                }
                if number % 3 == 0 { try tx.remove(removable) } else { try tx.set(number, for: removable) }
            }
            transaction = number
            say("tx \(number)")
        default:
            usleep(UInt32.random(in: 0...500, using: &random))
        }
    }
}

// MARK: - Disk full

/// Lowers RLIMIT_FSIZE so the `-wal` cannot grow past `limit` bytes, writes until SQLite
/// refuses, and reports what the store said and what stayed readable.
func diskFull(path: String, limit: UInt64) throws {
    signal(SIGXFSZ, SIG_IGN)
    let store = try DefaultsStore(path: path)
    let failures = store.reportedErrors()
    let collected = Locked<[DefaultsError]>([])
    let listener = Task.detached {
        for await failure in failures { collected.withLock { $0.append(failure) } }
    }
    var limits = rlimit()
    getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits)
    let original = limits
    limits.rlim_cur = rlim_t(limit)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits) == 0 else {
        throw DefaultsError(.sqlite, "setrlimit failed: \(String(cString: strerror(errno)))")
    }

    func report(_ name: String, _ error: (any Error)?) {
        if let error = error as? DefaultsError {
            say("\(name) \(error.code.rawValue) \(error.sqliteCode.map(String.init) ?? "-") \(error.message.replacingOccurrences(of: "\n", with: " "))")
        } else if let error {
            say("\(name) foreign \(error)")
        } else {
            say("\(name) ok")
        }
    }

    // 1. Throwing sets of 8 KiB blobs until one fails.
    var written: [Int] = []
    var firstFailure: (any Error)?
    for index in 0..<10_000 {
        do {
            try store.set(Data(repeating: UInt8(index % 251), count: 8192), for: DefaultsKey<Data>("blob.\(index)", default: Data()))
            written.append(index)
        } catch {
            firstFailure = error
            break
        }
    }
    say("written \(written.count)")
    report("set", firstFailure)

    // 2. Everything acknowledged before is still readable, in this store and in a new one.
    func readable(_ reader: DefaultsStore) -> Bool {
        written.allSatisfy { index in
            (try? reader.value(for: DefaultsKey<Data>("blob.\(index)", default: Data()))) == Data(repeating: UInt8(index % 251), count: 8192)
        }
    }
    say("readable \(readable(store))")
    // Kept open to the end: closing a store checkpoints, which would move the -wal into the
    // main file and make room again in the middle of the run.
    var second: DefaultsStore?
    do {
        second = try DefaultsStore(path: path)
        say("reopened-readable \(readable(second!))")
    } catch {
        report("reopen", error)
    }

    // 3. A transaction that does not fit: all or nothing.
    do {
        try store.transaction { tx in
            for index in 0..<8 {
                try tx.set(Data(repeating: 7, count: 16_384), for: DefaultsKey<Data>("tx.\(index)", default: Data()))
            }
        }
        report("transaction", nil)
    } catch {
        report("transaction", error)
    }
    let present = (0..<8).filter { store.contains(DefaultsKey<Data>("tx.\($0)", default: Data())) }.count
    say("transaction-rows \(present)")

    // 3b. A transaction larger than the page cache: SQLite spills it into the -wal before
    //     COMMIT, so the failure comes from a statement inside the transaction.
    do {
        try store.transaction { tx in
            for index in 0..<48 {
                try tx.set(Data(repeating: 8, count: 65_536), for: DefaultsKey<Data>("spill.\(index)", default: Data()))
            }
        }
        report("spill", nil)
    } catch {
        report("spill", error)
    }
    let spilled = (0..<48).filter { store.contains(DefaultsKey<Data>("spill.\($0)", default: Data())) }.count
    say("spill-rows \(spilled)")

    // 4. modify that grows a value.
    do {
        try store.modify(DefaultsKey<Data>("blob.0", default: Data())) { $0 = Data(repeating: 9, count: 65_536) }
        report("modify", nil)
    } catch {
        report("modify", error)
    }
    say("modify-kept \((try? store.value(for: DefaultsKey<Data>("blob.0", default: Data()))) == Data(repeating: 0, count: 8192))")

    // 5. The non-throwing setter reports instead of crashing or dropping it.
    store[DefaultsKey<Data>("subscript", default: Data())] = Data(repeating: 1, count: 65_536)
    report("subscript-last", store.lastReportedError)
    let deadline = Date().addingTimeInterval(5)
    while collected.withLock({ $0.isEmpty }) && Date() < deadline { usleep(1_000) }
    report("subscript-stream", collected.withLock { $0.first })
    say("subscript-absent \(!store.contains(DefaultsKey<Data>("subscript", default: Data())))")

    // 6. Space again: the same store writes again.
    var restored = original
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &restored)
    do {
        try store.set(42, for: DefaultsKey<Int>("after", default: 0))
        report("after-space", nil)
    } catch {
        report("after-space", error)
    }
    listener.cancel()
    withExtendedLifetime(second) {}
}

// MARK: - Corruption probe

/// Opens a possibly damaged database and touches everything; prints what happened. A crash
/// shows up in the test as a signal.
func probe(path: String, prefix: String, count: Int) {
    let store: DefaultsStore
    do {
        store = try DefaultsStore(path: path)
        say("open ok")
    } catch let error as DefaultsError {
        say("open \(error.code.rawValue) \(error.message.replacingOccurrences(of: "\n", with: " "))")
        return
    } catch {
        say("open foreign \(error)")
        return
    }
    var codes: [String: Int] = [:]
    var values: [String] = []
    for index in 0..<count {
        do {
            let value = try store.value(for: DefaultsKey<SQLiteValue?>("\(prefix)\(index)"))
            codes["ok", default: 0] += 1
            values.append(canonical(value))
        } catch let error as DefaultsError {
            codes[error.code.rawValue, default: 0] += 1
        } catch {
            codes["foreign", default: 0] += 1
        }
    }
    say("reads " + codes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    do {
        say("keys \(try store.keys().count)")
    } catch let error as DefaultsError {
        say("keys failed \(error.code.rawValue)")
    } catch {
        say("keys failed foreign")
    }
    do {
        try store.set("probe", for: DefaultsKey<String>("probe.write", default: ""))
        say("write ok")
    } catch let error as DefaultsError {
        say("write \(error.code.rawValue)")
    } catch {
        say("write foreign")
    }
    say("first \(values.first ?? "-")")
}
