import DefaultsTestSupport
import Foundation
import SQLiteDefaults

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
