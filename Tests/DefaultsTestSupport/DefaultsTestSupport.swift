// Shared by the engine, reliability and @ObservableDefaults test suites: temporary
// directories, waiting for events with a deadline, and running the helper executables and
// the sqlite3 shell. Waiting is SQLiteDefaultsTesting's `eventually` (the product users get);
// the Bool-returning forms here adapt it for `#expect(await …)`, and `waitBlocking` is its
// twin for threads of their own (helper executables, `onOwnThread { }`), which cannot await.
// Every test runs on the cooperative pool (two threads in CI), sync tests too: a test waits
// with the async forms, and the blocking ones are unavailable from async code (`noasync`).
import ChildProcesses
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing

/// A fresh directory under the system's temporary directory, removed when the test ends.
public final class TemporaryDirectory {
    public let path: String

    public init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/sqlite-defaults-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public var database: String { path + "/defaults.sqlite" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A value behind an `NSLock` (a pthread mutex). The reliability suite runs under
/// ThreadSanitizer, which cannot see `Synchronization.Mutex` hand a contended lock over on
/// Linux (it does so in the kernel) and would report every such access as a race.
public final class Locked<Value>: @unchecked Sendable {
    // Sendable proof: `value` is only touched inside `withLock`, while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Values delivered on other threads, collected for assertions; `wait` blocks (politely)
/// until a condition holds or a generous deadline passes.
public final class Collected<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    public init() {}

    public func append(_ item: Element) { items.withLock { $0.append(item) } }
    public var all: [Element] { items.withLock { $0 } }
    public var count: Int { items.withLock { $0.count } }

    /// Waits until `condition` holds for the collected items; returns whether it did. Blocks
    /// the calling thread: for threads of their own; tests use ``waitAsync(timeout:until:)``.
    @discardableResult
    @available(*, noasync, message: "blocks a thread of the cooperative pool: use waitAsync")
    public func wait(timeout: Duration = .seconds(15), until condition: ([Element]) -> Bool) -> Bool {
        waitBlocking(timeout: timeout) { condition(all) }
    }

    @available(*, noasync, message: "blocks a thread of the cooperative pool: use waitAsync(count:)")
    public func wait(count: Int, timeout: Duration = .seconds(15)) -> Bool {
        wait(timeout: timeout) { $0.count >= count }
    }

    /// Like `wait`, but sleeps without holding a thread of the cooperative pool, so tasks
    /// that feed the collection (an `AsyncSequence` consumer) can run meanwhile.
    public func waitAsync(timeout: Duration = .seconds(60), until condition: ([Element]) -> Bool) async -> Bool {
        await waitUntil(timeout: timeout) { condition(all) }
    }

    /// Whether at least `count` items arrived within `timeout` (see ``waitAsync(timeout:until:)``).
    public func waitAsync(count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        await waitAsync(timeout: timeout) { $0.count >= count }
    }
}

/// `eventually` as a Bool for `#expect(await waitUntil { … })`: waits, without holding a
/// thread of the cooperative pool, until `condition` holds or `timeout` passes; returns
/// whether it held. A condition that throws counts as "not yet".
@discardableResult
public func waitUntil(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async -> Bool {
    do {
        try await eventually(timeout: timeout) { try condition() }
        return true
    } catch {
        return false
    }
}

/// The blocking twin of `eventually`, for synchronous tests (which cannot await): checks
/// `condition` every 2 ms until it holds or `timeout` passes; returns whether it held. It
/// blocks the calling thread, so async tests use ``waitUntil(timeout:_:)`` instead.
@discardableResult
@available(*, noasync, message: "blocks a thread of the cooperative pool: use waitUntil")
public func waitBlocking(timeout: Duration = .seconds(15), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(2_000)
    }
    return true
}

/// Built executables live next to the test bundle's executable.
public func builtExecutable(_ name: String) -> String {
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return me.deletingLastPathComponent().appendingPathComponent(name).path
}

public struct ProcessResult: Sendable {
    public let status: Int32
    public let output: String
    public let error: String
}

/// Runs a program to completion (through ``ChildProcess``, the one way the suites start
/// programs) and captures its output. A child still running after ten minutes is killed and
/// reported as an error. This form blocks its thread until the child ends; in async code the
/// compiler picks the `async` overload (AsyncProcesses.swift), which suspends instead.
@discardableResult
public func runProcess(_ executable: String, _ arguments: [String], input: String? = nil) throws -> ProcessResult {
    ignoreSIGPIPE
    let child = try ChildProcess(executable, arguments, input: input.map { Array($0.utf8) })
    guard let outcome = child.waitBlocking(timeout: .seconds(600)) else {
        throw DefaultsError(.ioError, "\(child.commandLine) did not finish within ten minutes; it was killed")
    }
    return ProcessResult(status: outcome.status,
                         output: outcome.standardOutput, error: outcome.standardError)
}

/// A child that exits before it reads its input (a `sqlite3` that cannot load its library) raises
/// SIGPIPE in this process, which ends the whole test run with no report; ignored, the write
/// fails and only that test does. Evaluated once, by naming it.
public let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// Runs the test helper executable.
@discardableResult
public func runHelper(_ arguments: String...) throws -> ProcessResult {
    try runProcess(builtExecutable("DefaultsTestHelper"), arguments)
}

/// The `sqlite3` shell's path, found on `PATH` (so the SQLite matrix, Scripts/sqlite-matrix.sh,
/// runs each version's own shell against its own library); tests that need it fail (not skip)
/// when it is missing, because CI installs it.
public func sqlite3Path() throws -> String {
    if let found = ChildProcess.findOnPath("sqlite3") { return found }
    throw DefaultsError(.cannotOpen, "the sqlite3 shell is not installed (apt-get install sqlite3)")
}

/// Runs SQL in the `sqlite3` shell against `database`; returns its trimmed output.
@discardableResult
public func sqlite3(_ database: String, _ sql: String) throws -> String {
    try sqlite3Output(runProcess(try sqlite3Path(), sqlite3Arguments(database), input: sql))
}

/// The shell's arguments for `database`: batch mode, and a 10 s busy timeout.
func sqlite3Arguments(_ database: String) -> [String] {
    ["-batch", "-cmd", ".timeout 10000", database]
}

/// What the shell printed, trimmed; its failure as a ``DefaultsError`` naming its status.
func sqlite3Output(_ result: ProcessResult) throws -> String {
    guard result.status == 0 else {
        throw DefaultsError(.sqlite, "sqlite3 failed (\(result.status)): \(result.error)")
    }
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// `EXPLAIN QUERY PLAN sql` from the `sqlite3` shell, in the words SQLite 3.36 and later use:
/// 3.34 writes "SEARCH TABLE t" and "SCAN TABLE t" where later versions write "SEARCH t" and
/// "SCAN t" (a plan's wording is not a contract; the tests check which index a plan uses).
public func queryPlan(_ database: String, _ sql: String) throws -> String {
    planInTodaysWords(try sqlite3(database, "EXPLAIN QUERY PLAN " + sql))
}

/// A plan as SQLite 3.36 and later word it ("SEARCH t", not 3.34's "SEARCH TABLE t").
func planInTodaysWords(_ plan: String) -> String {
    plan.replacingOccurrences(of: "SEARCH TABLE ", with: "SEARCH ")
        .replacingOccurrences(of: "SCAN TABLE ", with: "SCAN ")
}

/// File permission bits of `path`.
public func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

public func fileBytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}

/// One line-safe text per stored value, the same in every process (the reliability helper
/// prints it, the tests compare it): `nil`, `i:…`, `r:…` (the double's bits), `t:…`, `x:…` (TEXT
/// that is not valid UTF-8), `b:…` (hex).
public func canonical(_ value: SQLiteValue?) -> String {
    switch value {
    case nil, .null?: "nil"
    case .integer(let number)?: "i:\(number)"
    case .real(let number)?: "r:\(number.bitPattern)"
    case .text(let text)?: "t:" + Data(text.utf8).map { String(format: "%02x", $0) }.joined()
    case .invalidUTF8Text(let bytes)?: "x:" + bytes.map { String(format: "%02x", $0) }.joined()
    case .blob(let bytes)?: "b:" + bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// A seeded generator (SplitMix64) for test and helper choices, so a failure can be rerun
/// from the seed it names.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: Long-running helpers, threads and descriptors (edges, lifecycle, scale)

/// A `DefaultsTestHelper` left running while the test talks to it: every line it prints is
/// collected as it arrives. Killed (SIGKILL, which also ends a stopped child) when released.
public final class RunningHelper: Sendable {
    /// Lines of standard output so far.
    public let lines = Collected<String>()
    /// Lines of standard error so far.
    public let errorLines = Collected<String>()
    private let child: ChildProcess

    /// Starts the helper with `arguments` (the command first).
    /// - Parameters:
    ///   - environment: variables set for the helper on top of this process's environment
    ///     (`DEFAULTS_TEST_HELPER_BUSY_TIMEOUT`, in seconds, sets its store's busy timeout).
    ///   - idle: starts it at the lowest CPU priority (`nice -n 19`), for a test that starts
    ///     hundreds of helpers and must not take both cores from the suites beside it.
    public init(_ arguments: [String], environment: [String: String] = [:], idle: Bool = false) throws {
        let lines = self.lines, errorLines = self.errorLines
        let helper = builtExecutable("DefaultsTestHelper")
        child = try ChildProcess(idle ? "/usr/bin/nice" : helper, idle ? ["-n", "19", helper] + arguments : arguments,
                                 environment: environment,
                                 onLine: { lines.append($0) }, onErrorLine: { errorLines.append($0) })
    }

    /// Waits (without holding a pool thread) for a line that satisfies `matching`; returns it, or nil after
    /// `timeout` or as soon as the helper reports a failure (its "DefaultsTestHelper: …" line on standard error).
    public func line(timeout: Duration = .seconds(30), _ matching: @escaping (String) -> Bool) async -> String? {
        let errorLines = self.errorLines
        _ = await lines.waitAsync(timeout: timeout) { lines in
            lines.contains(where: matching) || errorLines.all.contains { $0.hasPrefix("DefaultsTestHelper: ") }
        }
        return lines.all.first(where: matching)
    }

    /// Waits for a line starting with `prefix` and returns the rest of it.
    public func value(after prefix: String, timeout: Duration = .seconds(30)) async -> String? {
        await line(timeout: timeout) { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// Sends `signal` to the helper.
    public func send(_ signal: Int32) { child.send(signal) }

    /// Waits for the helper to exit; its status (the signal number if one ended it), or nil
    /// if it was still running after `timeout` (it is then killed).
    public func exitStatus(timeout: Duration = .seconds(30)) async -> Int32? {
        await child.wait(timeout: timeout)?.status
    }

    /// What the helper wrote on standard error, for failure messages.
    public var errors: String { errorLines.all.joined(separator: "\n") }

    deinit { child.send(SIGKILL) }
}

/// Threads and descriptors of this process, and the descriptors open on files under a directory.
public enum ProcessResources {
    public static var threads: Int { entries("/proc/self/task").count }
    public static var descriptors: Int { entries("/proc/self/fd").count }

    /// Targets of this process's descriptors that lie under `directory`.
    public static func descriptors(under directory: String) -> [String] {
        entries("/proc/self/fd").compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix(directory) }
    }

    private static func entries(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}

/// Whether this run forced the portable polling monitor (`SQLITEDEFAULTS_MONITOR=polling`, as
/// `.ci/run` runs the observation suites a second time): tests of inotify-specific behaviour
/// (one instance, a watched directory) are then skipped, with a message that says so.
public let monitorForcedToPoll = ProcessInfo.processInfo.environment["SQLITEDEFAULTS_MONITOR"] == "polling"

/// CLOCK_REALTIME in nanoseconds: comparable with the time stamps other processes print.
public func realtimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// The first element `sequence` yields within `timeout`, or nil if it ended or yielded nothing by then.
public func firstElement<Element: Sendable>(of sequence: AsyncStream<Element>, timeout: Duration = .seconds(10)) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = sequence.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Whether iterating `sequence` to its end finishes within `timeout` (the elements are dropped).
public func ends<Element: Sendable>(_ sequence: AsyncStream<Element>, within timeout: Duration = .seconds(10)) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await _ in sequence {}
            return !Task.isCancelled
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}

/// The two tiers of the test suite. `swift test` runs the fast tier; the slow tier — the
/// multi-process soak, the crash loop, 10,000 stores, PostgreSQL — runs when the environment
/// variable `SQLITEDEFAULTS_SLOW_TESTS` is `1`, as CI sets it.
public enum TestTier {
    /// Whether the slow tier runs.
    public static let slowTestsEnabled = ProcessInfo.processInfo.environment["SQLITEDEFAULTS_SLOW_TESTS"] == "1"
    /// Whether the `sqlite3` shell is installed.
    public static let hasSQLiteShell = (try? sqlite3Path()) != nil
}

extension Trait where Self == ConditionTrait {
    /// Runs only in the slow tier (`SQLITEDEFAULTS_SLOW_TESTS=1`).
    public static var slowTier: Self {
        .enabled(if: TestTier.slowTestsEnabled, "slow tier: runs with SQLITEDEFAULTS_SLOW_TESTS=1 (CI sets it)")
    }

    /// Skips, saying what to install, where the `sqlite3` shell is missing.
    public static var requiresSQLiteShell: Self {
        .enabled(if: TestTier.hasSQLiteShell, "needs the sqlite3 shell: apt-get install sqlite3")
    }
}

/// The first `count` changes of a change feed, or an error when they did not all arrive within
/// `timeout` (a feed waits for commits forever; a test must not).
public func firstChanges(of feed: DefaultsChangeFeed, count: Int, timeout: Duration = .seconds(60))
    async throws -> [DefaultsHistoryEntry<SQLiteValue>] {
    try await withThrowingTaskGroup(of: [DefaultsHistoryEntry<SQLiteValue>]?.self) { group in
        group.addTask {
            var seen: [DefaultsHistoryEntry<SQLiteValue>] = []
            for try await change in feed {
                seen.append(change)
                if seen.count == count { break }
            }
            return seen
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return try #require(first, "the feed did not deliver \(count) changes within \(timeout)")
    }
}
