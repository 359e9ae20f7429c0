import DefaultsTestSupport
import FaultVFS
import Foundation
import SQLiteDefaults
import Testing

extension FaultTests {
    /// I/O errors, injected by the fault VFS: in a scripted workload (open, writes of each kind,
    /// a non-throwing subscript write, a transaction, `modify`, a removal, a declaration, an
    /// `evolve`, reads, a history length), the Nth call of the chosen kinds fails, for every N.
    /// Each failure surfaces as a named ``DefaultsError`` on the call that hit it (or on
    /// `reportedErrors` for the subscript); after every step the store holds exactly what an
    /// unfaulted twin holds that ran the steps that succeeded; once the fault clears the same store
    /// works without reopening; its observers heard exactly the twin's changes; and the file opens
    /// again holding the same. Opening a new file (migrations) and an existing one (the log
    /// guard) are faulted too, and the monitor's look at another connection's commit.
    ///
    /// The fast tier injects a sample of the N; the slow tier every one.
    @Suite("I/O errors")
    struct IOErrorTests {
        /// The ways a call fails: what the VFS makes of it and which errors may name it.
        struct Fault: CustomStringConvertible, Sendable {
            let name: String
            let mask: Int32
            let flavor: Int32
            let sticky: Bool
            let codes: Set<DefaultsError.Code>
            /// With FULL every commit syncs the log, so every commit meets a failing sync.
            var synchronous: DefaultsStore.Configuration.Synchronous = .normal
            /// In the slow tier, every how many calls one fails (1: each of them).
            var slowStride = 1

            var description: String { name }

            static let everyCallEIO = Fault(
                name: "EIO, each call in turn", mask: 0x7FF, flavor: Int32(FAULTVFS_EIO), sticky: false,
                codes: [.ioError, .cannotOpen])
            static let diskFull = Fault(
                name: "ENOSPC on writes, for the rest of the call", mask: Int32(FAULTVFS_WRITE), flavor: Int32(FAULTVFS_ENOSPC), sticky: true,
                codes: [.diskFull], slowStride: 3)
            static let syncsAndTruncates = Fault(
                name: "EIO on syncs and truncates (FULL), for the rest of the call", mask: Int32(FAULTVFS_SYNC | FAULTVFS_TRUNCATE),
                flavor: Int32(FAULTVFS_EIO), sticky: true, codes: [.ioError], synchronous: .full)
            static let readsAndLocks = Fault(
                name: "EIO on reads, locks and the shared memory, for the rest of the call",
                mask: Int32(FAULTVFS_READ | FAULTVFS_LOCK | FAULTVFS_SHM_MAP | FAULTVFS_SHM_LOCK | FAULTVFS_FILE_SIZE | FAULTVFS_ACCESS),
                flavor: Int32(FAULTVFS_EIO), sticky: true, codes: [.ioError, .cannotOpen], slowStride: 4)
            static let opensRefused = Fault(
                name: "EACCES on opens", mask: Int32(FAULTVFS_OPEN | FAULTVFS_ACCESS), flavor: Int32(FAULTVFS_EACCES), sticky: false,
                codes: [.cannotOpen, .ioError, .permissionDenied])
        }

        @Test(arguments: [Fault.everyCallEIO, .diskFull, .syncsAndTruncates, .readsAndLocks, .opensRefused])
        func everyInjectedFaultIsNamedLosesNothingAndClears(_ fault: Fault) async throws {
            try await onOwnThread { try injectEach(fault) }
        }

        private func injectEach(_ fault: Fault) throws {
            let started = ContinuousClock.now
            let base = try ScratchDirectory()
            try makeBaseFiles(base.path)
            var total = IOFaultTotals()
            for start in StartingFile.allCases {
                // How many calls of these kinds the workload makes, then each of them in turn.
                let calls = try runFaulted(fault, nth: nil, start: start, base: base.path, totals: &total)
                var random = SeededRandom(seed: UInt64(calls) &* 7919 &+ UInt64(fault.mask))
                let every = Array(1...max(1, calls))
                let sample = TestTier.slowTestsEnabled ? every.filter { $0 % fault.slowStride == 0 || $0 == 1 }
                    : Array(Set((0..<8).map { _ in every.randomElement(using: &random)! } + [1, calls])).sorted()
                for nth in sample {
                    _ = try runFaulted(fault, nth: nth, start: start, base: base.path, totals: &total)
                }
            }
            let elapsed = ContinuousClock.now - started
            #expect(total.failures.isEmpty, "\(total.failures.count) runs (\(fault)) broke the promise; first: \(total.failures.prefix(5).joined(separator: " | "))")
            #expect(total.injected > 0, "no fault fired")
            reportFigure("I/O errors (\(fault)): \(total.runs) runs, \(total.injected) failed calls, errors surfaced: \(total.codes.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")), \(total.absorbed) failed calls the library recovered from (best-effort checks), in \(elapsed)")
        }

        /// A read failing while the log guard checks a crashed writer's `-wal` with
        /// `integrity_check` is the disk failing, not the log damaging the file: the open
        /// fails with `.ioError` and leaves the log where it is, and the next open replays it.
        /// (The log was moved aside as not belonging, losing the writer's commits.)
        @Test func aReadFailingWhileTheLogIsCheckedDoesNotSetTheLogAside() async throws {
            try await onOwnThread {
                let base = try ScratchDirectory()
                try makeBaseFiles(base.path)
                var failures: [String] = [], refused = 0, nth = 0
                while true {
                    nth += 1
                    let directory = try ScratchDirectory()
                    let path = directory.path + "/defaults.sqlite"
                    for suffix in ["", "-wal"] {
                        try FileManager.default.copyItem(atPath: base.path + "/crashedWriter/defaults.sqlite" + suffix, toPath: path + suffix)
                    }
                    let fired = try FaultFiles.watching(directory.path + "/") { () throws -> Bool in
                        faultvfs_arm(nth, Int32(FAULTVFS_READ), Int32(FAULTVFS_EIO), 0)
                        do {
                            try DefaultsStore(path: path, configuration: quietConfiguration()).close()
                        } catch let error as DefaultsError {
                            refused += 1
                            if error.code != .ioError && error.code != .cannotOpen { failures.append("read \(nth): .\(error.code) \(error.message)") }
                        }
                        return faultvfs_failures() > 0
                    }
                    guard fired else { break }
                    let store = try DefaultsStore(path: path, configuration: quietConfiguration())
                    if store[DefaultsKey<String>("left.4", default: "")] != "in the log" {
                        failures.append("read \(nth): the crashed writer's commits are gone (\(store.lastReportedError.map { "\($0)" } ?? "nothing reported"))")
                    }
                    try store.close()
                }
                #expect(failures.isEmpty, "\(failures.prefix(3).joined(separator: " | "))")
                #expect(nth > 10 && refused > 0)
            }
        }

        /// Another connection commits; the watching store's looks at that commit fail, each call
        /// in turn: it hears the change once the fault clears, exactly as committed, and nothing else.
        @Test func aFailedLookAtAnotherConnectionsCommitIsRetried() async throws {
            try await onOwnThread { try failedLooks() }
        }

        private func failedLooks() throws {
            let directory = try ScratchDirectory()
            try makeBaseFiles(directory.path)
            let path = directory.path + "/existing/defaults.sqlite"
            var failures: [String] = []
            var injected = 0
            // A look at one commit makes about eight calls: each of them fails in turn, and more.
            let looks = 16
            try FaultFiles.watching(directory.path + "/") {
                var configuration = quietConfiguration()
                configuration.externalChangeDetection = .polling(interval: .milliseconds(5))
                let watcher = try DefaultsStore(path: path, configuration: configuration)
                let writer = try DefaultsStore(path: path, configuration: quietConfiguration())
                let heard = Collected<AnyDefaultsChange>()
                let observation = watcher.observe(prefix: "other.") { heard.append($0) }
                defer { observation.cancel() }
                for nth in 1...looks {
                    faultvfs_suspend(1)
                    faultvfs_arm(nth, 0x7FF, Int32(FAULTVFS_EIO), 0)
                    let key = DefaultsKey<Int>("other.\(nth)", default: 0)
                    try writer.set(nth, for: key)
                    faultvfs_suspend(0)
                    // A blocking wait: this runs on a thread of its own (onOwnThread), not the pool.
                    let arrived = heard.wait(timeout: .seconds(10)) { $0.contains { $0.key == key.name } }
                    injected += faultvfs_failures()
                    faultvfs_disarm()
                    if !arrived { failures.append("look \(nth): the change never arrived") }
                    if (try? watcher.value(for: key)) != nth { failures.append("look \(nth): the watcher reads \(String(describing: try? watcher.value(for: key)))") }
                }
                let expected = (1...looks).map { AnyDefaultsChange(key: "other.\($0)", newValue: .integer(Int64($0)), origin: .external) }
                let changes = heard.all.map { AnyDefaultsChange(key: $0.key, newValue: $0.newValue, origin: $0.origin) }
                if changes != expected { failures.append("heard \(changes.map { "\($0.key)=\(String(describing: $0.newValue))" }), expected each change once in order") }
                try watcher.close()
                try writer.close()
            }
            #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: " | "))")
            reportFigure("I/O errors in the monitor's look: \(looks) commits by another connection, \(injected) injected failures")
        }
    }
}

struct IOFaultTotals {
    var runs = 0
    var injected = 0
    var absorbed = 0
    var codes: [String: Int] = [:]
    var failures: [String] = []
}

/// What the faulted workload opens.
enum StartingFile: String, CaseIterable {
    /// A file with a few keys, a declaration and some history, closed (its log checkpointed).
    case existing
    /// The same, with more keys in a `-wal` that a crashed writer left (nobody holds it): the
    /// open replays it after the log guard checked that it belongs.
    case crashedWriter
    /// No file yet: the open creates and migrates it.
    case new
}

/// The files `StartingFile.existing` and `.crashedWriter` copy, under `directory`.
private func makeBaseFiles(_ directory: String) throws {
    let path = directory + "/existing/defaults.sqlite"
    let store = try DefaultsStore(path: path, configuration: quietConfiguration())
    try store.set(1, for: FaultWorkload.count)
    try store.set("Ada", for: FaultWorkload.name)
    try store.set(true, for: FaultWorkload.flag)
    try store.declare(FaultWorkload.flag)
    try store.close()
    // A writer that dies leaves its database and its log as they were at its last commit:
    // copied while it is open, without the -shm.
    let crashed = directory + "/crashedWriter"
    try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: true)
    let writer = try DefaultsStore(path: path, configuration: quietConfiguration())
    try writer.set("crashed", for: FaultWorkload.name)
    try writer.set(WindowFrame(x: 9, y: 9, title: "left behind"), for: FaultWorkload.frame)
    try writer.transaction { tx in
        for index in 0..<5 { tx[DefaultsKey<String>("left.\(index)", default: "")] = "in the log" }
    }
    for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: crashed + "/defaults.sqlite" + suffix) }
    try writer.close()
}

/// The steps of the scripted workload after opening; a read step throws `CheckFailure` when
/// it reads something other than the twin.
private func ioSteps() -> [WorkloadStep] {
    [
        .on("set Int") { try $0.set(7, for: FaultWorkload.count) },
        .on("set String") { try $0.set("Grace", for: FaultWorkload.name) },
        .on("set Data") { try $0.set(Data((0..<3_000).map { UInt8($0 % 251) }), for: FaultWorkload.blob) },
        .on("set Codable") { try $0.set(WindowFrame(x: 3, y: 4, title: "side"), for: FaultWorkload.frame) },
        .on("transaction of 10") { store in
            try store.transaction { tx in
                for index in 0..<10 { tx[DefaultsKey<Int>("tx.\(index)", default: 0)] = index + 1 }
            }
        },
        .on("modify") { try $0.modify(FaultWorkload.counter) { $0 += 5 } },
        .on("remove") { try $0.remove(FaultWorkload.flag) },
        .on("declare") { try $0.declare(FaultWorkload.count, FaultWorkload.name) },
        .on("evolve") { try $0.evolve(FaultWorkload.count, to: FaultWorkload.countAsDouble) { Double($0) } },
        .on("history length") { try $0.setHistoryRetention(500) },
        .on("read keys") { _ = try $0.keys() },
        .on("read history") { _ = try $0.history(limit: 50) },
        .on("set after") { try $0.set(["x"], for: FaultWorkload.tags) },
    ]
}

/// The key the non-throwing step writes.
private let subscriptKey = DefaultsKey<String?>("nickname")

/// Runs the workload once with the `nth` call of the fault's kinds failing (nil: none, to count
/// them) on a copy of the base file (or a new file), beside an unfaulted twin that runs only the
/// steps that succeeded, and checks everything the I/O-error promise says. Returns the number
/// of calls of the fault's kinds counted.
@discardableResult
private func runFaulted(_ fault: FaultTests.IOErrorTests.Fault, nth: Int?, start: StartingFile, base: String,
                        totals: inout IOFaultTotals) throws -> Int {
    let directory = try ScratchDirectory()
    let twinDirectory = try ScratchDirectory()
    let path = directory.path + "/defaults.sqlite"
    let twinPath = twinDirectory.path + "/defaults.sqlite"
    if start != .new {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: base + "/\(start.rawValue)/defaults.sqlite" + suffix) {
            try FileManager.default.copyItem(atPath: base + "/\(start.rawValue)/defaults.sqlite" + suffix, toPath: path + suffix)
            try FileManager.default.copyItem(atPath: base + "/\(start.rawValue)/defaults.sqlite" + suffix, toPath: twinPath + suffix)
        }
    }
    let context = "\(start) file, call \(nth.map(String.init) ?? "-")"
    var configuration = quietConfiguration()
    configuration.synchronous = fault.synchronous
    totals.runs += 1
    return try FaultFiles.watching(directory.path + "/") {
        faultvfs_arm(nth ?? Int.max, fault.mask, fault.flavor, fault.sticky ? 1 : 0)
        let twin = try DefaultsStore(path: twinPath, configuration: configuration)
        let twinHeard = Collected<AnyDefaultsChange>()
        let twinObservation = twin.observe { twinHeard.append($0) }
        defer { twinObservation.cancel() }
        let heard = Collected<AnyDefaultsChange>()
        var observation: DefaultsObservation?
        defer { observation?.cancel() }
        var failed = false
        func fail(_ text: String) {
            failed = true
            totals.failures.append("\(context): \(text)")
        }
        /// After a step: the fault clears (a sticky one too); what the store holds, through
        /// its cache and from the file, is the twin's.
        func compare(_ store: DefaultsStore, after step: String) {
            faultvfs_suspend(1)
            defer { faultvfs_suspend(0) }
            if fault.sticky, faultvfs_failures() > 0 { faultvfs_disarm() }
            do {
                let mine = try StoreContents(store), theirs = try StoreContents(twin)
                if mine != theirs {
                    fail("after \(step) the store holds \(mine.rows.keys.sorted()) \(mine.declarations.map(\.key)), its twin \(theirs.rows.keys.sorted()) \(theirs.declarations.map(\.key))")
                }
                for key in Set(mine.rows.keys).union(theirs.rows.keys) {
                    let cached = try store.value(for: DefaultsKey<SQLiteValue?>(key))
                    if cached != theirs.rows[key] { fail("after \(step) a read of \(key) returns \(String(describing: cached)), the file holds \(String(describing: theirs.rows[key]))") }
                }
            } catch {
                fail("after \(step) the store cannot be read once the fault cleared: \(error)")
            }
        }
        func expectNamed(_ error: any Error, in step: String) {
            guard let error = error as? DefaultsError else { return fail("\(step) threw \(error), not a DefaultsError") }
            totals.codes[error.code.rawValue, default: 0] += 1
            if !fault.codes.contains(error.code) { fail("\(step) threw .\(error.code) (\(error.message)), not one of \(fault.codes.map { ".\($0)" })") }
            if faultvfs_failures() == 0 { fail("\(step) threw \(error) with no fault injected") }
        }

        // Open: on a new file, creating and migrating it; on an existing one, the log guard.
        var store: DefaultsStore
        var openThrew = false
        do {
            store = try DefaultsStore(path: path, configuration: configuration)
        } catch {
            openThrew = true
            expectNamed(error, in: "open")
            faultvfs_disarm()
            do { store = try DefaultsStore(path: path, configuration: configuration) } catch {
                fail("the file cannot be opened once the fault cleared: \(error)")
                totals.injected += faultvfs_failures()
                return faultvfs_calls()
            }
        }
        // A failure the open recovered from (a best-effort check, a prune) and did not throw.
        if !openThrew && faultvfs_failures() > 0 { totals.absorbed += faultvfs_failures() }
        observation = store.observe { heard.append($0) }
        compare(store, after: "open")

        var steps = ioSteps()
        steps.insert(.on("subscript set") { $0[subscriptKey] = "ada" }, at: 4)
        for step in steps {
            let failuresBefore = faultvfs_failures()
            let reportedBefore = store.lastReportedError.map { "\($0)" }
            do {
                try step.run(WorkloadSession(opened: store))
                if step.name == "subscript set", let reported = store.lastReportedError, "\(reported)" != reportedBefore {
                    // A non-throwing write reports its failure instead.
                    expectNamed(reported, in: step.name)
                } else {
                    try step.run(WorkloadSession(opened: twin))
                    if faultvfs_failures() > failuresBefore { totals.absorbed += faultvfs_failures() - failuresBefore }
                }
            } catch {
                expectNamed(error, in: step.name)
            }
            compare(store, after: step.name)
            if failed { break }
        }
        faultvfs_suspend(1)
        defer { faultvfs_suspend(0) }
        totals.injected += faultvfs_failures()
        let calls = faultvfs_calls()
        faultvfs_disarm()
        faultvfs_suspend(0)
        // Usable again, without reopening; observers heard what the twin heard, no more.
        let marker = DefaultsKey<Int>("marker", default: 0)
        do {
            try store.set(1, for: marker)
            try twin.set(1, for: marker)
        } catch {
            fail("a write after the fault cleared failed: \(error)")
        }
        // Blocking waits: every run is made from injectEach, on a thread of its own (onOwnThread).
        _ = heard.wait(timeout: .seconds(10)) { $0.contains { $0.key == marker.name } }
        _ = twinHeard.wait(timeout: .seconds(10)) { $0.contains { $0.key == marker.name } }
        let mine = heard.all.map { "\($0.key)=\(String(describing: $0.newValue))" }
        let theirs = twinHeard.all.map { "\($0.key)=\(String(describing: $0.newValue))" }
        if mine != theirs {
            fail("observers heard \(mine), the twin's \(theirs)")
        }
        try? store.close()
        // The file opens again and holds what the twin holds.
        do {
            let reopened = try DefaultsStore(path: path, configuration: configuration)
            if try StoreContents(reopened) != StoreContents(twin) { fail("reopened, the file holds something else than the twin") }
            try reopened.close()
        } catch {
            fail("the file cannot be opened again: \(error)")
        }
        try? twin.close()
        return calls
    }
}

extension WorkloadSession {
    convenience init(opened store: DefaultsStore) {
        self.init(path: store.path ?? "", configuration: quietConfiguration())
        self.store = store
    }
}
