import DefaultsTestSupport
import FaultVFS
import Foundation
import SQLiteDefaults
import Testing

/// Power loss, simulated from a recording: the workload runs once through the fault VFS, which
/// keeps every write, truncate, sync and delete of the database, its `-wal` and any rollback
/// journal; then, for each cut point, the files a power cut there would have left are rebuilt
/// in a fresh directory — each file as its last sync made it, plus none, all, a torn
/// (sector-granular) prefix, or a scattered subset of what was written since; never a `-shm` —
/// and the library opens them.
///
/// With `synchronous` FULL every write acknowledged before the cut is there. With NORMAL (the
/// default) the file opens, passes `integrity_check`, and holds the state after some
/// acknowledged step, in commit order, no older than the last sync of the `-wal` (a
/// checkpoint) before the cut; history, declarations and the change log agree with `defaults`.
///
/// The fast tier replays a sample of cut points; the slow tier every one of them.
/// `POWER_LOSS_SEED` reruns a seed.
extension FaultTests {
    @Suite("Power loss")
    struct PowerLossTests {
        @Test(arguments: [DefaultsStore.Configuration.Synchronous.full, .normal])
        func aPowerCutLosesNothingTheDurabilityPromised(_ synchronous: DefaultsStore.Configuration.Synchronous) async throws {
            try await onOwnThread { try powerCuts(synchronous) }
        }

        private func powerCuts(_ synchronous: DefaultsStore.Configuration.Synchronous) throws {
            let seed = UInt64(environmentNumber("POWER_LOSS_SEED", default: Double(UInt32.random(in: 1...UInt32.max))))
            let started = ContinuousClock.now
            let recorded = try RecordedWorkload(synchronous: synchronous)
            var random = SeededRandom(seed: seed)
            let everyCut = Array(0...recorded.recording.operations.count)
            let cuts: [Int]
            let fates: [UnsyncedFate]
            if TestTier.slowTestsEnabled {
                cuts = everyCut
                fates = UnsyncedFate.allCases
            } else {
                // Around syncs (where what is durable changes), plus a random sample.
                let syncs = recorded.recording.syncIndexes
                var sample = Set((0..<15).compactMap { _ in syncs.randomElement(using: &random) }.flatMap { [$0, $0 + 1] })
                while sample.count < 60 { sample.insert(Int.random(in: everyCut.indices, using: &random)) }
                cuts = sample.sorted()
                fates = [.none, .all, .torn]
            }
            let outcome = try recorded.replay(cuts: cuts, fates: fates, random: &random)
            let elapsed = ContinuousClock.now - started
            let label = synchronous == .full ? "FULL" : "NORMAL"
            #expect(outcome.failures.isEmpty,
                    "\(outcome.failures.count) of \(outcome.images) power cuts (\(label), seed \(seed)) broke the promise; first: \(outcome.failures.prefix(5).joined(separator: " | "))")
            #expect(outcome.images >= cuts.count, "each cut point rebuilds at least one set of files")
            reportFigure("power loss (\(label)): \(recorded.recording.operations.count) recorded operations of \(recorded.steps.count) steps, \(cuts.count) cut points, \(outcome.images) distinct images opened in \(elapsed) (\(outcome.opening) opening and checking them); \(outcome.lostSinceSync) lost acknowledged steps (all after the last -wal sync), \(outcome.setAside) logs set aside")
        }
    }
}

/// A workload run once through the fault VFS with its recording, the acknowledged state after
/// each step, and where each step began and ended among the recorded operations.
struct RecordedWorkload {
    let steps: [WorkloadStep]
    let synchronous: DefaultsStore.Configuration.Synchronous
    let recording: Recording
    /// The directory the workload ran in (its files' paths start with it).
    let directory: String
    /// The number of recorded operations when each step began, and when it returned.
    let begun: [Int]
    let acknowledged: [Int]
    /// The contents after each step.
    let states: [StoreContents]

    init(synchronous: DefaultsStore.Configuration.Synchronous) throws {
        let steps = FaultWorkload.steps()
        let temporary = try ScratchDirectory()
        let directory = URL(fileURLWithPath: temporary.path).resolvingSymlinksInPath().path
        var configuration = quietConfiguration()
        configuration.synchronous = synchronous
        var begun: [Int] = [], acknowledged: [Int] = [], states: [StoreContents] = []
        let recording = try FaultFiles.watching(directory + "/") {
            faultvfs_record(1)
            let session = WorkloadSession(path: directory + "/defaults.sqlite", configuration: configuration)
            for step in steps {
                begun.append(faultvfs_op_count())
                try step.run(session)
                acknowledged.append(faultvfs_op_count())
                states.append(try StoreContents(try session.open()))
            }
            try session.store?.close()
            return FaultFiles.recording()
        }
        self.steps = steps
        self.synchronous = synchronous
        self.recording = recording
        self.directory = directory
        self.begun = begun
        self.acknowledged = acknowledged
        self.states = states
        _ = temporary
    }

    struct Outcome {
        var images = 0
        var failures: [String] = []
        /// Images that lost an acknowledged step (allowed with NORMAL after the last `-wal` sync).
        var lostSinceSync = 0
        var setAside = 0
        /// Time spent opening and checking the rebuilt files (the rest is rebuilding them).
        var opening = Duration.zero
    }

    /// Rebuilds the files of each cut, under each fate of the unsynced operations, and checks
    /// what the library makes of them.
    func replay(cuts: [Int], fates: [UnsyncedFate], random: inout SeededRandom) throws -> Outcome {
        let root = try ScratchDirectory()
        let keep = ProcessInfo.processInfo.environment["POWER_LOSS_KEEP"]
        var outcome = Outcome()
        let walFile = recording.paths.firstIndex { $0.hasSuffix("-wal") }
        var replayer = PowerCut.Replayer(recording)
        var lastWalSync: Int?
        for cut in cuts.sorted() {
            for index in replayer.position..<cut {
                if case .sync = recording.operations[index].kind, recording.operations[index].file == walFile { lastWalSync = index }
            }
            replayer.advance(to: cut)
            let files = replayer.durable.indices.map { (durable: replayer.durable[$0], unsynced: replayer.unsynced[$0]) }
            let pending = files.indices.filter { !files[$0].unsynced.isEmpty }
            var plans: [[UnsyncedFate]] = fates.map { fate in files.indices.map { _ in fate } }
            if pending.count > 1 {
                for chosen in pending { plans.append(files.indices.map { $0 == chosen ? .all : .none }) }
            }
            if pending.isEmpty { plans = [files.indices.map { _ in .none }] }
            var seen: [[Data]] = []
            // The steps acknowledged before the cut, begun before it, and acknowledged before
            // the last sync of the -wal.
            let acknowledgedSteps = acknowledged.filter { $0 <= cut }.count
            let begunSteps = begun.filter { $0 < cut }.count
            let durableSteps = lastWalSync.map { sync in acknowledged.filter { $0 <= sync }.count } ?? 0
            for plan in plans {
                let images = files.indices.map { file in
                    PowerCut.survivor(durable: files[file].durable, unsynced: files[file].unsynced, fate: plan[file], random: &random)
                }
                guard !seen.contains(images) else { continue }
                seen.append(images)
                outcome.images += 1
                let place = root.path + "/\(outcome.images)"
                try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: place) }
                for (file, image) in zip(recording.paths, images) where !image.isEmpty || file.hasSuffix(".sqlite") {
                    let path = place + file.dropFirst(directory.count)
                    guard FileManager.default.createFile(atPath: path, contents: image, attributes: [.posixPermissions: 0o600]) else {
                        throw DefaultsError(.cannotOpen, "cannot write \(path)")
                    }
                }
                let context = "cut \(cut) (\(plan.map(\.description).joined(separator: "/")), steps acknowledged \(acknowledgedSteps), begun \(begunSteps), durable \(durableSteps))"
                let checking = ContinuousClock.now
                defer { outcome.opening += ContinuousClock.now - checking }
                do {
                    let step = try check(place + "/defaults.sqlite", outcome: &outcome)
                    // Which step's state this is: the latest one that matches, in range.
                    let lowest = max(0, (synchronous == .full ? acknowledgedSteps : durableSteps) - 1)
                    let highest = max(0, begunSteps - 1)
                    let matches = states.indices.filter { states[$0] == step }
                    if !matches.contains(where: { (lowest...highest).contains($0) }) {
                        let found = matches.isEmpty ? "no step's state" : "the state after step(s) \(matches)"
                        outcome.failures.append("\(context): found \(found), expected one of steps \(lowest)...\(highest)")
                    } else if let last = matches.last(where: { (lowest...highest).contains($0) }), last < acknowledgedSteps - 1 {
                        outcome.lostSinceSync += 1
                    }
                } catch {
                    outcome.failures.append("\(context): \(error)")
                }
                if let keep, outcome.failures.count <= 3, outcome.failures.last?.hasPrefix("\(context):") == true {
                    // POWER_LOSS_KEEP=DIR: the first failing images, as rebuilt, for a look.
                    try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
                    for (file, image) in zip(recording.paths, images) where !image.isEmpty {
                        _ = FileManager.default.createFile(atPath: keep + "/cut\(cut)-\(outcome.images)" + file.dropFirst(directory.count), contents: image)
                    }
                }
            }
        }
        return outcome
    }

    /// Opens the rebuilt files with the library and checks that they are whole and consistent;
    /// returns what the store holds.
    private func check(_ path: String, outcome: inout Outcome) throws -> StoreContents {
        var configuration = quietConfiguration()
        configuration.synchronous = synchronous
        let store = try DefaultsStore(path: path, configuration: configuration)
        defer { try? store.close() }
        if store.lastReportedError?.code == .walSetAside { outcome.setAside += 1 }
        let contents = try StoreContents(store)
        let integrity = integrityCheck(path)
        guard integrity == "ok" else { throw CheckFailure("integrity_check: \(integrity)") }
        // The newest history entry of each key agrees with its row.
        var newest: [String: DefaultsHistoryEntry<SQLiteValue>] = [:]
        for entry in try store.history(limit: 100_000) where newest[entry.key] == nil { newest[entry.key] = entry }
        for (key, entry) in newest {
            if entry.isRemoved {
                guard contents.rows[key] == nil else { throw CheckFailure("history says \(key) was removed; defaults holds it") }
            } else if let written = entry.value.written {
                guard contents.rows[key] == written else {
                    throw CheckFailure("history says \(key) is \(written); defaults holds \(contents.rows[key].map { "\($0)" } ?? "nothing")")
                }
            }
        }
        let newestSequence = try store.newestSequence()
        guard newestSequence >= (newest.values.map(\.sequence).max() ?? 0) else {
            throw CheckFailure("the newest sequence \(newestSequence) is older than the history's")
        }
        // Each declaration's key holds a value the declaration accepts: declare and write it back.
        for declaration in contents.declarations where contents.rows[declaration.key] != nil {
            guard try store.declaration(for: declaration.key) == declaration else {
                throw CheckFailure("the declaration of \(declaration.key) reads differently alone")
            }
        }
        return contents
    }
}

struct CheckFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
