import Foundation
import SQLiteDefaults

// MARK: Edges and lifecycle
//
//     DefaultsTestHelper open-many DIR N KEY       opens N stores on distinct files under DIR (100 subdirectories; the
//                                                   first created, the others copies of one migrated file) after
//                                                   raising RLIMIT_NOFILE; observes KEY (String) on the first and the last.
//                                                   Prints "one threads T fds F inotify I" after the first,
//                                                   "many N seconds S threads T fds F inotify I", "path P" (the last
//                                                   store's file) and "ready"; then "heard VALUE" on the last store's
//                                                   first change, and exits (status 3 if nothing came within 120 s)
//     DefaultsTestHelper observe-all DB            prints "pid PID" and "ready", then "all KEY VALUE ORIGIN" per observe(_:) change and
//                                                   "changes KEY VALUE ORIGIN" per changes() element, until killed
//     DefaultsTestHelper write-many DB N           N separate commits: k(i % 100) = "v<i>" for i in 0..<N; prints "done"
//     DefaultsTestHelper write-spaced DB KEY N MS  sets 1…N (Int), MS milliseconds apart; after each set returns prints
//                                                   "VALUE NANOSECONDS" (CLOCK_REALTIME)
//     DefaultsTestHelper release-in-callback DB N  N times each: a store held only by its own observer drops itself inside
//                                                   an external-change callback, inside a local-change callback, and
//                                                   closes itself inside each; prints
//                                                   "fds BEFORE AFTER threads BEFORE AFTER released R of T"
//     DefaultsTestHelper close-loop DB KEY N       N × open, observe, set, close; prints "fds BEFORE AFTER threads BEFORE AFTER"
extension DefaultsTestHelper {
    /// Runs one of the commands above; false when `arguments` names none of them.
    static func runEdgeCommand(_ arguments: [String]) throws -> Bool {
        guard let command = arguments.first else { return false }
        switch command {
        case "open-many":
            guard arguments.count == 4, let count = Int(arguments[2]), count >= 2 else { throw usage() }
            try openMany(directory: arguments[1], count: count, key: arguments[3])
        case "observe-all":
            guard arguments.count == 2 else { throw usage() }
            try observeEveryKey(path: arguments[1])
        case "write-many":
            guard arguments.count == 3, let count = Int(arguments[2]) else { throw usage() }
            let store = try DefaultsStore(path: arguments[1])
            let keys = (0..<100).map { DefaultsKey<String>("k\($0)", default: "") }
            for index in 0..<count { try store.set("v\(index)", for: keys[index % 100]) }
            print("done")
        case "write-spaced":
            guard arguments.count == 5, let count = Int(arguments[3]), let milliseconds = UInt32(arguments[4]) else { throw usage() }
            let store = try DefaultsStore(path: arguments[1])
            let key = DefaultsKey<Int>(arguments[2], default: 0)
            for value in 1...max(count, 1) {
                try store.set(value, for: key)
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                edgeSay("\(value) \(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))")
                usleep(milliseconds * 1_000)
            }
        case "release-in-callback":
            guard arguments.count == 3, let count = Int(arguments[2]) else { throw usage() }
            try releaseInCallback(path: arguments[1], count: count)
        case "close-loop":
            guard arguments.count == 4, let count = Int(arguments[3]) else { throw usage() }
            let key = DefaultsKey<Int>(arguments[2], default: 0)
            func cycle(_ value: Int) throws {
                let store = try DefaultsStore(path: arguments[1])
                let token = store.observe(key) { _ in }
                let changes = store.changes()
                try store.set(value, for: key)
                try store.close()
                withExtendedLifetime((token, changes)) {}
            }
            try cycle(-1)  // warm up what the runtime and Foundation open lazily
            let before = EdgeCounts.now()
            for value in 0..<count { try cycle(value) }
            let after = EdgeCounts.settled(toward: before)
            print("fds \(before.descriptors) \(after.descriptors) threads \(before.threads) \(after.threads)")
        default:
            return false
        }
        fflush(nil)
        return true
    }

    private static func openMany(directory: String, count: Int, key name: String) throws {
        let limit = EdgeCounts.raiseDescriptorLimit()
        let key = DefaultsKey<String>(name, default: "")
        func path(_ index: Int) -> String { "\(directory)/d\(index % 100)/s\(index).sqlite" }
        let first = try DefaultsStore(path: path(0))
        let firstToken = first.observe(key) { _ in }
        let one = EdgeCounts.now()
        edgeSay("one threads \(one.threads) fds \(one.descriptors) inotify \(one.inotifyInstances)")
        var stores: [DefaultsStore] = [first]
        stores.reserveCapacity(count)
        // The other files are copies of one closed, migrated store: what this measures is what a
        // store costs the process once open (threads, descriptors, the one inotify instance), not
        // creating a schema 10,000 times (the migration tests cover that; it was 9 ms of CPU a store
        // and made this the slowest test of the suite).
        let template = "\(directory)/template.sqlite"
        try DefaultsStore(path: template).close()
        let start = ContinuousClock.now
        for index in 1..<count {
            do {
                if index < 100 {
                    try FileManager.default.createDirectory(atPath: "\(directory)/d\(index)", withIntermediateDirectories: true)
                }
                try FileManager.default.copyItem(atPath: template, toPath: path(index))
                stores.append(try DefaultsStore(path: path(index)))
            } catch {
                throw DefaultsError(.cannotOpen, "store \(index + 1) of \(count) (descriptor limit \(limit)) did not open: \(error)")
            }
        }
        let elapsed = (ContinuousClock.now - start).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let last = stores[stores.count - 1]
        let heard = DispatchSemaphore(value: 0)
        let lastToken = last.observe(key) { change in
            edgeSay("heard \(change.newValue)")
            heard.signal()
        }
        let many = EdgeCounts.now()
        edgeSay("many \(stores.count) seconds \(String(format: "%.1f", seconds)) threads \(many.threads) fds \(many.descriptors) inotify \(many.inotifyInstances) limit \(limit)")
        edgeSay("path \(path(stores.count - 1))")
        edgeSay("ready")
        let outcome = heard.wait(timeout: .now() + 120)
        withExtendedLifetime((stores, firstToken, lastToken)) {}
        if outcome == .timedOut { exit(3) }
    }

    private static func observeEveryKey(path: String) throws {
        let store = try DefaultsStore(path: path)
        edgeSay("pid \(getpid())")
        let token = store.observe { change in
            edgeSay("all \(change.key) \(edgeText(change.newValue)) \(change.origin)")
        }
        let changes = store.changes()
        Task {
            for await change in changes {
                edgeSay("changes \(change.key) \(edgeText(change.newValue)) \(change.origin)")
            }
        }
        edgeSay("ready")
        withExtendedLifetime(token) {
            while true { sleep(3_600) }
        }
    }

    private static func releaseInCallback(path: String, count: Int) throws {
        let key = DefaultsKey<Int>("released", default: 0)
        let writer = try DefaultsStore(path: path)
        var value = 0
        var released = 0, total = 0
        let modes = ["external", "local", "close-external", "close-local"]
        /// One store, held only by its own observer (through `box`), dropped inside the callback.
        func round(_ mode: String) throws -> Bool {
            value += 1
            let expected = value
            let done = DispatchSemaphore(value: 0)
            let box = EdgeStoreBox()
            weak var weakStore: DefaultsStore?
            do {
                let store = try DefaultsStore(path: path)
                weakStore = store
                box.hold(store, store.observe(key) { change in
                    guard change.newValue == expected else { return }
                    if mode.hasPrefix("close") {
                        do { try box.store?.close() } catch { edgeSay("close failed: \(error)") }
                    }
                    box.clear()
                    done.signal()
                })
                if mode.hasSuffix("external") {
                    try writer.set(expected, for: key)
                } else {
                    try store.set(expected, for: key)
                }
            }
            guard done.wait(timeout: .now() + 30) == .success else {
                edgeSay("no callback in round \(expected) (\(mode))")
                return false
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while weakStore != nil && ContinuousClock.now < deadline { usleep(1_000) }
            return weakStore == nil
        }
        for mode in modes { _ = try round(mode) }  // warm up
        let before = EdgeCounts.now()
        for _ in 0..<count {
            for mode in modes {
                total += 1
                if try round(mode) { released += 1 }
            }
        }
        let after = EdgeCounts.settled(toward: before)
        print("fds \(before.descriptors) \(after.descriptors) threads \(before.threads) \(after.threads) released \(released) of \(total)")
    }
}

/// A store and its observation, held by the observer's own closure: the only strong
/// references to the store, cleared from inside the callback.
final class EdgeStoreBox: @unchecked Sendable {
    // Sendable proof: `held` is only touched while `lock` is held.
    private let lock = NSLock()
    private var held: (store: DefaultsStore, token: DefaultsObservation)?

    func hold(_ store: DefaultsStore, _ token: DefaultsObservation) {
        lock.lock(); defer { lock.unlock() }
        held = (store, token)
    }

    var store: DefaultsStore? {
        lock.lock(); defer { lock.unlock() }
        return held?.store
    }

    func clear() {
        lock.lock()
        let dropped = held
        held = nil
        lock.unlock()
        withExtendedLifetime(dropped) {}  // released here, on the delivering thread
    }
}

/// Threads, descriptors and inotify instances of this process.
struct EdgeCounts {
    var threads: Int
    var descriptors: Int
    var inotifyInstances: Int

    static func now() -> EdgeCounts {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let inotify = descriptors.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify"
        }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
        return EdgeCounts(threads: threads, descriptors: descriptors.count, inotifyInstances: inotify.count)
    }

    /// The counts once they are back to `before` (threads and descriptors may be let go just
    /// after the last call returned), or after 5 s, whichever comes first.
    static func settled(toward before: EdgeCounts) -> EdgeCounts {
        let deadline = ContinuousClock.now + .seconds(5)
        var current = now()
        while (current.threads > before.threads || current.descriptors > before.descriptors) && ContinuousClock.now < deadline {
            usleep(10_000)
            current = now()
        }
        return current
    }

    /// Raises the soft descriptor limit to the hard one (and, as root, the hard one to 65,536
    /// first, where the kernel allows it); returns the soft limit now in force.
    static func raiseDescriptorLimit() -> UInt64 {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        getrlimit(resource, &limit)
        if geteuid() == 0 && limit.rlim_max < 65_536 {
            var raised = limit
            raised.rlim_max = 65_536
            raised.rlim_cur = 65_536
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
        getrlimit(resource, &limit)
        return UInt64(limit.rlim_cur)
    }
}

private let edgeOutput = NSLock()

/// Prints one line and flushes it at once, whole, whichever thread calls.
func edgeSay(_ line: String) {
    edgeOutput.lock()
    defer { edgeOutput.unlock() }
    print(line)
    fflush(nil)
}

/// One space-free text per stored value: `nil`, `i:…`, `r:…` (the double's bit pattern), `t:…` (the text,
/// spaces as `␠`), `x:…`, `b:…` (the byte count of TEXT that is not valid UTF-8, of a BLOB).
func edgeText(_ value: SQLiteValue?) -> String {
    switch value {
    case nil, .null?: "nil"
    case .integer(let number)?: "i:\(number)"
    case .real(let number)?: "r:\(number.bitPattern)"
    case .text(let text)?: "t:" + text.replacingOccurrences(of: " ", with: "␠")
    case .invalidUTF8Text(let bytes)?: "x:\(bytes.count)"
    case .blob(let bytes)?: "b:\(bytes.count)"
    }
}
