import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// A writer killed with SIGKILL, again and again, at random moments: while the file is being
/// created and migrated, between writes, and inside a multi-key transaction whose commit
/// spans many WAL frames. After every kill the file opens, is intact, holds every write the
/// writer acknowledged, and holds each transaction wholly or not at all.
///
/// `CRASH_ROUNDS` sets the number of rounds (default 20).
@Suite("Crash loop", .offThePool, .slowTier, .requiresSQLiteShell)
struct CrashLoopTests {
    @Test(.timeLimit(.minutes(10)))
    func killedWritersLoseNoAcknowledgedWrite() async throws {
        // The loop's blocking waits (for lines, for the killed writer's exit, for the shell)
        // hold this thread of its own, not one of the cooperative pool.
        try await onOwnThread { try crashLoop() }
    }

    private func crashLoop() throws {
        let rounds = Int(environmentNumber("CRASH_ROUNDS", default: 20))
        let directory = try TemporaryDirectory()
        let database = directory.database  // not created: the first round may die creating it
        let helper = builtExecutable("ReliabilityHelper")
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        var random = SeededRandom(seed: seed)

        // What the file held after the previous round (the writer continues from there).
        var stored = (sequence: 0, counter: 0, transaction: 0)
        var kinds: [String: Int] = [:]
        var acknowledgedTotal = 0
        for round in 0..<rounds {
            let child = try HelperProcess(helper, ["crash-writer", database, "\(seed &+ UInt64(round))"])
            let kind: String
            switch round % 4 {
            case 0:
                // Early: while opening (round 0: creating and migrating the file).
                kind = "opening"
                usleep(UInt32.random(in: 0...40_000, using: &random))
            case 1, 3:
                // Inside a transaction: after it wrote half its keys, before it commits.
                kind = "mid-transaction"
                _ = child.waitForLine(timeout: .seconds(20)) { $0.hasPrefix("txbegin ") }
                usleep(UInt32.random(in: 0...1_500, using: &random))
            default:
                // Anywhere: after a random number of acknowledged writes.
                kind = "random"
                let target = Int.random(in: 1...300, using: &random)
                child.lines.wait(timeout: .seconds(20)) { $0.count >= target }
            }
            child.kill(SIGKILL)
            try #require(child.waitForExit(timeout: .seconds(30)))
            #expect(child.diedOfSignal, "round \(round): the writer ended by itself: \(child.errorOutput)")
            kinds[kind, default: 0] += 1

            var acknowledged = (sequence: stored.sequence, counter: stored.counter, transaction: stored.transaction)
            var begun = stored.transaction
            for line in child.output {
                let parts = line.split(separator: " ")
                guard parts.count == 2, let number = Int(parts[1]) else { continue }
                switch parts[0] {
                case "seq": acknowledged.sequence = max(acknowledged.sequence, number); acknowledgedTotal += 1
                case "counter": acknowledged.counter = max(acknowledged.counter, number); acknowledgedTotal += 1
                case "tx": acknowledged.transaction = max(acknowledged.transaction, number); acknowledgedTotal += 1
                case "txbegin": begun = max(begun, number)
                default: break
                }
            }

            // The library opens the file (recovering the WAL) and finds everything acknowledged.
            let store = try DefaultsStore(path: database, configuration: quietConfiguration())
            let sequence = try store.value(for: DefaultsKey<Int>("crash.seq", default: 0))
            let counter = try store.value(for: DefaultsKey<Int>("crash.counter", default: 0))
            #expect(sequence >= acknowledged.sequence && sequence <= acknowledged.sequence + 1, "round \(round) (\(kind), seed \(seed)): seq \(sequence), acknowledged \(acknowledged.sequence)")
            #expect(counter >= acknowledged.counter && counter <= acknowledged.counter + 1, "round \(round) (\(kind), seed \(seed)): counter \(counter), acknowledged \(acknowledged.counter)")

            // A transaction is all there or not at all.
            let numbers = try (0..<20).map { try store.value(for: DefaultsKey<Int>("crash.tx.\($0)", default: 0)) }
            let transaction = numbers[0]
            #expect(Set(numbers).count == 1, "round \(round) (\(kind), seed \(seed)): a torn transaction \(numbers)")
            #expect(transaction >= acknowledged.transaction && transaction <= max(begun, acknowledged.transaction), "round \(round) (\(kind), seed \(seed)): transaction \(transaction), acknowledged \(acknowledged.transaction), begun \(begun)")
            let payload = try store.value(for: DefaultsKey<Data>("crash.tx.payload", default: Data()))
            if transaction > 0 {
                #expect(!payload.isEmpty && payload.allSatisfy { $0 == UInt8(truncatingIfNeeded: transaction) }, "round \(round): payload of another transaction")
                let removable = try store.value(for: DefaultsKey<Int?>("crash.removable"))
                #expect(removable == (transaction % 3 == 0 ? nil : transaction), "round \(round): removable \(String(describing: removable)) for transaction \(transaction)")
            } else {
                #expect(payload.isEmpty)
            }
            #expect(try sqlite3(database, "PRAGMA integrity_check") == "ok", "round \(round)")
            stored = (sequence, counter, transaction)
        }
        reportFigure("crash loop: \(rounds) SIGKILL rounds survived (\(kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))), \(acknowledgedTotal) acknowledged writes checked, final seq \(stored.sequence) counter \(stored.counter) transaction \(stored.transaction), seed \(seed)")
    }
}
