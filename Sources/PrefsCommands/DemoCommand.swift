#if Prefs
import ArgumentParser
import ChildProcesses
import Foundation
import PrefsFormats
import SQLiteDefaults
import Synchronization

/// `prefs demo`: the README's "run the main job" command.
///
/// In a temporary database it shows, with timings: typed values stored as native SQLite
/// values; an observer receiving a change; a change made by a separate `prefs write` process
/// and one made by the `sqlite3` shell (when installed) arriving at the observer; and a
/// write surviving SIGKILL of the process that made it. It exits 0 only if every step worked
/// within its deadline (and all of them in under ten seconds).
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show typed values, observation across processes and durability, in a temporary database.",
        discussion: """
            Runs in a new temporary database (removed afterwards unless --keep), takes a few \
            seconds, and exits 0 only if every step worked. It starts `prefs write` and a \
            SIGKILLed writer as child processes, and the sqlite3 shell when it is on PATH.
            """
    )

    @Flag(help: "Keep the temporary database and print its path.")
    var keep = false

    /// The whole demo must finish within this.
    static let timeLimit: Duration = .seconds(10)

    func run() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("prefs-demo-\(UUID().uuidString)", isDirectory: true)
        let path = directory.appendingPathComponent("defaults.sqlite").path
        defer {
            if !keep { try? FileManager.default.removeItem(at: directory) }
        }

        try Console.out("SQLiteDefaults demo, in a temporary database: \(path)")
        let store: DefaultsStore
        do {
            store = try DefaultsStore(path: path, configuration: StoreOptions.configuration)
        } catch {
            throw PrefsError("cannot create the demo database: \(error)")
        }
        guard let executable = ChildProcess.currentExecutable() else {
            throw PrefsError("cannot find the prefs executable to start child processes")
        }
        let demo = Demo(store: store, path: path, executable: executable)

        let steps: [(title: String, body: () async throws -> Void)] = [
            ("Typed values, stored as native SQLite values", demo.typedValues),
            ("An observer receives a change", demo.localObserver),
            ("A change from another process (prefs write)", demo.otherProcess),
            ("A change from the sqlite3 shell", demo.sqliteShell),
            ("Durability: a writer killed with SIGKILL", demo.durability),
        ]
        var failures = 0
        for (number, step) in steps.enumerated() {
            try Console.out("")
            try Console.out("\(number + 1). \(step.title)")
            do {
                try await step.body()
            } catch {
                failures += 1
                try Console.out("   ✗ FAILED: \(ValueFormatting.oneLine(String(describing: error)))")
            }
        }

        let elapsed = clock.now - start
        try Console.out("")
        if elapsed > Self.timeLimit {
            failures += 1
            try Console.out("✗ The demo took \(Demo.format(elapsed)), more than its \(Demo.format(Self.timeLimit)) limit.")
        }
        if keep { try Console.out("The database is kept at \(path)") }
        if failures == 0 {
            try Console.out("All \(steps.count) steps worked in \(Demo.format(elapsed)).")
        } else {
            try Console.out("\(failures) of \(steps.count) steps FAILED (\(Demo.format(elapsed))).")
            throw ExitCode(1)
        }
    }
}

/// A failed demo step: what did not happen.
private struct DemoFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The demo's steps, sharing one store.
private struct Demo {
    let store: DefaultsStore
    let path: String
    let executable: String

    enum Theme: String, Sendable { case light, dark }

    struct Profile: Codable, Equatable, Sendable {
        var name: String
        var admin: Bool
    }

    // MARK: 1. Typed values

    func typedValues() async throws {
        let samples: [Sample] = [
            Sample(DefaultsKey<String>("demo.name", default: "Guest"), "Ada", "String"),
            Sample(DefaultsKey<Int>("demo.launches", default: 0), 42, "Int"),
            Sample(DefaultsKey<Double>("demo.ratio", default: 1), 0.75, "Double"),
            Sample(DefaultsKey<Bool>("demo.verbose", default: false), true, "Bool"),
            Sample(DefaultsKey<Date?>("demo.first-launch"), Date(timeIntervalSince1970: 1_767_225_600.25), "Date") {
                abs(($0?.timeIntervalSince1970 ?? 0) - ($1?.timeIntervalSince1970 ?? 1)) < 1e-6
            },
            Sample(DefaultsKey<URL?>("demo.homepage"), URL(string: "https://swift.org/server/"), "URL"),
            Sample(DefaultsKey<Data?>("demo.token"), Data([0xDE, 0xAD, 0xBE, 0xEF]), "Data"),
            Sample(DefaultsKey<Theme>("demo.theme", default: .light), .dark, "enum Theme: String"),
            Sample(DefaultsKey<[String]>("demo.tags", default: []), ["server", "linux"], "[String]"),
            Sample(DefaultsKey<Profile?>("demo.profile"), Profile(name: "Ada", admin: true), "Codable struct"),
        ]
        var mismatches: [String] = []
        for sample in samples {
            let readBack = try sample.writeAndCompare(store)
            let stored = try store.value(for: rowKey(sample.key)) ?? .null
            var shown = ValueFormatting.displayRepresentation(stored)
            if shown.count > 36 { shown = String(shown.prefix(35)) + "…" }
            try Console.out("   \(sample.key.padding(to: 18)) \(sample.swiftType.padding(to: 18)) → \(stored.storageClass.padding(to: 7))  \(shown)")
            if !readBack { mismatches.append(sample.key) }
        }
        guard mismatches.isEmpty else {
            throw DemoFailure("read back differently: \(mismatches.joined(separator: ", "))")
        }
        try Console.out("   ✓ \(samples.count) values written and read back exactly; any SQL client sees the classes above")
    }

    // MARK: 2. Local observer

    func localObserver() async throws {
        let key = DefaultsKey<Int>("demo.counter", default: 0)
        let log = ChangeLog<Int>()
        let token = store.observe(key) { log.record($0) }
        defer { token.cancel() }

        let began = Date()
        let result = try await store.modify(key) { count -> Int in
            count += 1
            return count
        }
        guard let event = await log.wait(timeout: .seconds(2), where: { $0.change.newValue == result }) else {
            throw DemoFailure("the observer of demo.counter was not called within 2 s")
        }
        guard event.change.origin == .local else {
            throw DemoFailure("the change arrived with origin \(event.change.origin), expected local")
        }
        try Console.out("   store.modify(.counter) { $0 += 1 }")
        try Console.out("   ✓ observer called: demo.counter = \(event.change.newValue) (origin: local), \(Self.format(event.received.timeIntervalSince(began))) after the write began")
    }

    // MARK: 3. Another process

    func otherProcess() async throws {
        let key = DefaultsKey<Date?>("demo.written-by-process")
        let log = ChangeLog<Date?>()
        let token = store.observe(key) { log.record($0) }
        defer { token.cancel() }

        let arguments = ["--db", path, "write", key.name, "now", "--type", "date"]
        let child = try ChildProcess(executable, arguments)
        try Console.out("   $ prefs --db … write \(key.name) now --type date")
        guard let outcome = await child.wait(timeout: .seconds(5)) else {
            throw DemoFailure("`prefs write` did not finish within 5 s")
        }
        guard outcome.succeeded else {
            throw DemoFailure("`prefs write` failed (status \(outcome.status)): \(ValueFormatting.oneLine(outcome.standardError))")
        }
        guard let event = await log.wait(timeout: .seconds(3), where: { $0.change.newValue != nil }),
              let written = event.change.newValue
        else {
            throw DemoFailure("the observer did not see the other process's write within 3 s")
        }
        guard event.change.origin == .external else {
            throw DemoFailure("the change arrived with origin \(event.change.origin), expected external")
        }
        let latency = max(0, event.received.timeIntervalSince(written))
        try Console.out("   ✓ observer called: \(key.name) = \(ISO8601.format(secondsSince1970: written.timeIntervalSince1970)) (origin: external), \(Self.format(latency)) after the child wrote it")
    }

    // MARK: 4. The sqlite3 shell

    func sqliteShell() async throws {
        guard let sqlite3 = ChildProcess.findOnPath("sqlite3") else {
            try Console.out("   – skipped: the sqlite3 shell is not installed (apt-get install sqlite3)")
            return
        }
        let key = DefaultsKey<Date?>("demo.written-by-sqlite3")
        let log = ChangeLog<Date?>()
        let token = store.observe(key) { log.record($0) }
        defer { token.cancel() }

        // The value is the shell's own clock at the write, in seconds since 1970 (ms precision).
        let sql = "INSERT INTO defaults(key, value) VALUES ('\(key.name)', (julianday('now') - 2440587.5) * 86400.0);"
        try Console.out("   $ sqlite3 … \"\(sql)\"")
        let child = try ChildProcess(sqlite3, ["-bail", "-cmd", ".timeout 5000", path, sql])
        guard let outcome = await child.wait(timeout: .seconds(5)) else {
            throw DemoFailure("sqlite3 did not finish within 5 s")
        }
        guard outcome.succeeded else {
            throw DemoFailure("sqlite3 failed (status \(outcome.status)): \(ValueFormatting.oneLine(outcome.standardError))")
        }
        guard let event = await log.wait(timeout: .seconds(3), where: { $0.change.newValue != nil }),
              let written = event.change.newValue
        else {
            throw DemoFailure("the observer did not see the sqlite3 shell's INSERT within 3 s")
        }
        guard event.change.origin == .external else {
            throw DemoFailure("the change arrived with origin \(event.change.origin), expected external")
        }
        let latency = max(0, event.received.timeIntervalSince(written))
        try Console.out("   ✓ observer called: \(key.name) = \(ISO8601.format(secondsSince1970: written.timeIntervalSince1970)) (origin: external), \(Self.format(latency)) after the shell wrote it")
    }

    // MARK: 5. Durability

    func durability() async throws {
        let key = "demo.survives-kill"
        let acknowledged = Atomic<Int64>(0)
        let child = try ChildProcess(executable, ["--db", path, "_write-loop", key]) { line in
            if let number = Int64(line) { acknowledged.store(number, ordering: .relaxed) }
        }
        try Console.out("   a child process writes 1, 2, 3, … to \(key), printing each number once set(_:for:) returned")

        let deadline = ContinuousClock.now + .seconds(3)
        while acknowledged.load(ordering: .relaxed) < 25 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        child.send(SIGKILL)
        guard let outcome = await child.wait(timeout: .seconds(3)) else {
            throw DemoFailure("the writer did not die within 3 s of SIGKILL")
        }
        guard outcome.killedBySignal, outcome.status == SIGKILL else {
            throw DemoFailure("the writer ended before it was killed (status \(outcome.status)): \(ValueFormatting.oneLine(outcome.standardError))")
        }
        let last = acknowledged.load(ordering: .relaxed)
        guard last > 0 else { throw DemoFailure("the writer acknowledged no write before it was killed") }

        // A new store: a new connection that reads what is on disk, not what this one cached.
        let reopened = try DefaultsStore(path: path, configuration: StoreOptions.configuration)
        guard case .integer(let stored)? = try reopened.value(for: rowKey(key)) else {
            throw DemoFailure("after the kill, \(key) has no integer value")
        }
        try Console.out("   the child acknowledged \(last) writes, then was killed with SIGKILL")
        guard stored == last || stored == last + 1 else {
            throw DemoFailure("a new connection reads \(stored), but the child had acknowledged \(last)")
        }
        let note = stored == last ? "" : " (the child committed one more before it could print it)"
        try Console.out("   ✓ a new connection reads \(key) = \(stored): every acknowledged write survived\(note)")
    }

    // MARK: Formatting

    static func format(_ seconds: TimeInterval) -> String {
        seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }

    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return format(Double(seconds) + Double(attoseconds) / 1e18)
    }
}

/// One typed key and the value the demo writes to it.
private struct Sample {
    let key: String
    let swiftType: String
    /// Writes the value, reads it back through the typed key, and says whether they match.
    let writeAndCompare: (DefaultsStore) throws -> Bool

    init<Value: Equatable & Sendable>(
        _ key: DefaultsKey<Value>, _ value: Value, _ swiftType: String,
        equal: @escaping (Value, Value) -> Bool = { $0 == $1 }
    ) {
        self.key = key.name
        self.swiftType = swiftType
        self.writeAndCompare = { store in
            try store.set(value, for: key)
            return equal(try store.value(for: key), value)
        }
    }
}

/// Changes an observer received, each with the wall-clock time it arrived.
private final class ChangeLog<Value: Sendable>: Sendable {
    struct Event: Sendable {
        let change: DefaultsChange<Value>
        let received: Date
    }

    private let events = Mutex<[Event]>([])

    /// Called from the observer: records the change and when it arrived.
    func record(_ change: DefaultsChange<Value>) {
        let event = Event(change: change, received: Date())
        events.withLock { $0.append(event) }
    }

    /// The first recorded change that matches, waiting up to `timeout` for it to arrive.
    /// (The arrival time is taken in the observer, so this polling does not affect it.)
    func wait(timeout: Duration, where matches: (Event) -> Bool) async -> Event? {
        let deadline = ContinuousClock.now + timeout
        repeat {
            if let event = events.withLock({ $0.first(where: matches) }) { return event }
            try? await Task.sleep(for: .milliseconds(1))
        } while ContinuousClock.now < deadline
        return events.withLock { $0.first(where: matches) }
    }
}
#endif
