import Foundation
import SQLiteDefaults
import SanitizerMutex

/// A separate process for cross-process tests: it opens a store on a file and does one job.
///
///     DefaultsTestHelper modify-loop DB KEY N        N × modify(+1) on an Int key
///     DefaultsTestHelper write-loop DB KEY           set 1, 2, 3, … forever; prints each value after set returns
///     DefaultsTestHelper set-int DB KEY VALUE        one set of an Int
///     DefaultsTestHelper set-string DB KEY VALUE     one set of a String
///     DefaultsTestHelper remove DB KEY               one remove
///     DefaultsTestHelper transaction-loop DB PREFIX  transactions writing PREFIX.a and PREFIX.b to the same
///                                                    number; prints each number after commit
///     DefaultsTestHelper lifecycle DB KEY N          opens, observes, writes and drops N stores; prints
///                                                    "fds BEFORE AFTER threads BEFORE AFTER"
///     DefaultsTestHelper write-timed DB KEY N        sets 1…N, 5 ms apart; after each set returns prints
///                                                    "VALUE NANOSECONDS" (CLOCK_REALTIME) for latency checks
///     DefaultsTestHelper observe DB KEY COUNT        prints "ready", then one line per change of a String
///                                                    key ("value origin") until COUNT changes arrived
///     DefaultsTestHelper standard-default DB KEY N   `@Default(KEY) var k = 1` with no store (the standard
///                                                    store, named after this executable): prints "before V",
///                                                    sets N, prints "after V", "path P" ("memory" for the
///                                                    stand-in) and "failure CODE MESSAGE" (or "failure none"),
///                                                    then how standard(name:) shares stores
@main
struct DefaultsTestHelper {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            try run(arguments)
        } catch {
            FileHandle.standardError.write(Data("DefaultsTestHelper: \(error)\n".utf8))
            exit(2)
        }
    }

    static func run(_ arguments: [String]) throws {
        if try runEdgeCommand(arguments) { return }
        if try runHistoryCommand(arguments) { return }
        if try runAsyncSetCommand(arguments) { return }
        if arguments.count == 3, arguments[0] == "budget", let count = Int(arguments[2]) {
            return try BudgetCommand.run(directory: arguments[1], count: count)
        }
        if arguments.count == 2, arguments[0] == "budget-race" {
            return try BudgetRaceCommand.run(directory: arguments[1])
        }
        guard arguments.count >= 3 else { throw usage() }
        let command = arguments[0]
        var configuration = DefaultsStore.Configuration()
        // A test that starts hundreds of helpers at idle priority gives them longer to wait for
        // each other's lock than the default 10 s (OpenTogetherTests).
        if let seconds = ProcessInfo.processInfo.environment["DEFAULTS_TEST_HELPER_BUSY_TIMEOUT"].flatMap(Int.init) {
            configuration.busyTimeout = .seconds(seconds)
        }
        let store = try DefaultsStore(path: arguments[1], configuration: configuration)
        let key = arguments[2]
        switch command {
        case "modify-loop":
            guard arguments.count == 4, let count = Int(arguments[3]) else { throw usage() }
            let counter = DefaultsKey<Int>(key, default: 0)
            for _ in 0..<count { try store.modify(counter) { $0 += 1 } }
        case "write-loop":
            let counter = DefaultsKey<Int>(key, default: 0)
            var value = 0
            while true {
                value += 1
                try store.set(value, for: counter)
                print(value)
                fflush(nil)
            }
        case "set-int":
            guard arguments.count == 4, let value = Int(arguments[3]) else { throw usage() }
            try store.set(value, for: DefaultsKey<Int>(key, default: 0))
        case "set-string":
            guard arguments.count == 4 else { throw usage() }
            try store.set(arguments[3], for: DefaultsKey<String>(key, default: ""))
        case "remove":
            try store.remove(DefaultsKey<String>(key, default: ""))
        case "transaction-loop":
            let a = DefaultsKey<Int>(key + ".a", default: 0)
            let b = DefaultsKey<Int>(key + ".b", default: 0)
            var value = 0
            while true {
                value += 1
                try store.transaction { tx in
                    try tx.set(value, for: a)
                    try tx.set(value, for: b)
                }
                print(value)
                fflush(nil)
            }
        case "write-timed":
            guard arguments.count == 4, let count = Int(arguments[3]) else { throw usage() }
            let counter = DefaultsKey<Int>(key, default: 0)
            for value in 1...max(count, 1) {
                try store.set(value, for: counter)
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                print("\(value) \(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))")
                fflush(nil)
                usleep(5_000)
            }
        case "lifecycle":
            guard arguments.count == 4, let count = Int(arguments[3]) else { throw usage() }
            let counter = DefaultsKey<Int>(key, default: 0)
            func entries(_ path: String) -> Int { (try? FileManager.default.contentsOfDirectory(atPath: path).count) ?? -1 }
            // Warm up what the runtime and Foundation open lazily.
            do { let warm = try DefaultsStore(path: arguments[1]); _ = warm.observe(counter) { _ in }; warm[counter] += 0 }
            let fdsBefore = entries("/proc/self/fd"), threadsBefore = entries("/proc/self/task")
            for _ in 0..<count {
                let scoped = try DefaultsStore(path: arguments[1])
                let token = scoped.observe(counter) { _ in }
                try scoped.modify(counter) { $0 += 1 }
                token.cancel()
            }
            print("fds \(fdsBefore) \(entries("/proc/self/fd")) threads \(threadsBefore) \(entries("/proc/self/task"))")
            _ = store
        case "observe":
            guard arguments.count == 4, let count = Int(arguments[3]) else { throw usage() }
            let done = DispatchSemaphore(value: 0)
            let seen = LockedCounter()
            let token = store.observe(DefaultsKey<String>(key, default: "")) { change in
                print("\(change.newValue) \(change.origin)")
                fflush(nil)
                if seen.increment() == count { done.signal() }
            }
            print("ready")
            fflush(nil)
            done.wait()
            token.cancel()
        case "standard-default":
            guard arguments.count == 4, let value = Int(arguments[3]) else { throw usage() }
            @Default(key) var k = 1
            print("before \(k)")
            k = value
            print("after \(k)")
            print("path \(DefaultsStore.standard.path ?? "memory")")
            let failure = DefaultsStore.standard.lastReportedError
            print("failure " + (failure.map { "\($0.code.rawValue) \($0.message)" } ?? "none"))
            // standard(name:) shares one store per path, the standard store's included.
            let named = try? DefaultsStore.standard(name: DefaultsStore.standardName)
            print("standard(name:) is standard: \(named === DefaultsStore.standard)")
            let other = try? DefaultsStore.standard(name: "other")
            print("standard(name:) twice is one store: \(other != nil && other === (try? DefaultsStore.standard(name: "other")))")
            var full = DefaultsStore.Configuration()
            full.synchronous = .full
            do {
                _ = try DefaultsStore.standard(name: "other", configuration: full)
                print("other settings: accepted")
            } catch {
                print("other settings: \((error as? DefaultsError)?.code.rawValue ?? "\(error)")")
            }
            try other?.close()
            let reopened = try? DefaultsStore.standard(name: "other")
            print("closed store replaced: \(reopened != nil && reopened !== other && reopened?.isClosed == false)")
            fflush(nil)
        default:
            throw usage()
        }
    }

    static func usage() -> DefaultsError {
        DefaultsError(.sqlite, "usage: DefaultsTestHelper modify-loop|write-loop|set-int|set-string|remove|transaction-loop|lifecycle|write-timed|observe|standard-default DB KEY [ARG]")
    }
}

import Synchronization

final class LockedCounter: Sendable {
    private let value = PthreadMutex(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}
