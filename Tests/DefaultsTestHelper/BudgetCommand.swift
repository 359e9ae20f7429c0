import Foundation
import SQLiteDefaults
import SanitizerMutex

/// `DefaultsTestHelper budget DIR N`: under a soft descriptor limit of 256 (room for about 85
/// open stores), opens N stores on distinct files in DIR, each with an observer, and keeps them
/// all. Prints "ready" and the process's descriptor count ("fds F"), then waits for one change
/// of key "k" of the FIRST store (long since suspended by then) and prints "heard VALUE"; then
/// writes and reads back a value in every store and prints "wrote N", or the first failure.
enum BudgetCommand {
    static func run(directory: String, count: Int) throws {
        var limits = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        limits.rlim_cur = 256
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else {
            throw DefaultsError(.sqlite, "setrlimit: \(String(cString: strerror(errno)))")
        }
        let key = DefaultsKey<String>("k", default: "")
        let heard = DispatchSemaphore(value: 0)
        let value = PthreadMutex<String?>(nil)
        var stores: [DefaultsStore] = []
        var tokens: [DefaultsObservation] = []
        for index in 0..<count {
            let store = try DefaultsStore(path: "\(directory)/s\(index).sqlite")
            let isFirst = index == 0
            tokens.append(store.observe(key) { change in
                guard isFirst else { return }
                value.withLock { $0 = change.newValue }
                heard.signal()
            })
            store[DefaultsKey<Int>("opened", default: 0)] = index
            stores.append(store)
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        say("ready")
        say("fds \(descriptors)")
        guard heard.wait(timeout: .now() + 120) == .success else {
            say("not heard")
            return
        }
        say("heard \(value.withLock { $0 } ?? "-")")
        for (index, store) in stores.enumerated() {
            let written = DefaultsKey<String>("written", default: "")
            try store.set("value \(index)", for: written)
            guard try store.value(for: written) == "value \(index)",
                  try store.value(for: DefaultsKey<Int>("opened", default: -1)) == index
            else {
                say("mismatch in store \(index)")
                return
            }
        }
        say("wrote \(stores.count)")
        withExtendedLifetime(tokens) {}
    }

    private static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}

import Synchronization

/// `DefaultsTestHelper budget-race DIR`: the commit the budget must not hide. Under a soft
/// descriptor limit of 256 (a budget of 28 connections) opens `DIR/s0.sqlite`, polled every
/// 5 s, with an observer of key "k", and prints "ready"; waits for the file `DIR/go` (the test
/// creates it after the sqlite3 shell committed "k", before the poll's next look); then opens
/// 40 more stores, so the budget suspends the first, idle one, and prints "opened"; then waits
/// up to 60 s for the shell's change and prints "heard VALUE", or "not heard".
enum BudgetRaceCommand {
    static func run(directory: String) throws {
        var limits = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
        limits.rlim_cur = 256
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else {
            throw DefaultsError(.sqlite, "setrlimit: \(String(cString: strerror(errno)))")
        }
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .polling(interval: .seconds(5))
        let first = try DefaultsStore(path: directory + "/s0.sqlite", configuration: configuration)
        let heard = DispatchSemaphore(value: 0)
        let value = PthreadMutex<String?>(nil)
        let token = first.observe(DefaultsKey<String>("k", default: "")) { change in
            value.withLock { $0 = change.newValue }
            heard.signal()
        }
        say("ready")
        // The test writes `go` when its body next runs; under a sanitizer, with two test bodies
        // at a time, that was once more than 60 s away (CI, 2026-12-02). A net, not a wait.
        let deadline = Date().addingTimeInterval(600)
        while !FileManager.default.fileExists(atPath: directory + "/go") {
            guard Date() < deadline else { return say("no go") }
            usleep(5_000)
        }
        var others: [DefaultsStore] = []
        for index in 1...40 {
            let store = try DefaultsStore(path: "\(directory)/o\(index).sqlite")
            store[DefaultsKey<Int>("opened", default: 0)] = index
            others.append(store)
        }
        say("opened")
        guard heard.wait(timeout: .now() + 300) == .success else { return say("not heard") }
        say("heard \(value.withLock { $0 } ?? "-")")
        withExtendedLifetime((token, others)) {}
    }

    private static func say(_ line: String) {
        print(line)
        fflush(nil)
    }
}
