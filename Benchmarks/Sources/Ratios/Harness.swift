import BenchmarkSupport
import Foundation
import MallocInterposerSwift

/// Seconds since the run started, on standard error.
enum Progress {
    /// Touched first thing in `main.swift`, so times count from the start of the run.
    static let start = Clock.nanoseconds()
}

func progress(_ text: String) {
    let seconds = Double(Clock.nanoseconds() - Progress.start) / 1e9
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
