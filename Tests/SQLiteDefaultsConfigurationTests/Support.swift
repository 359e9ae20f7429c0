#if Configuration && Prefs
import ChildProcesses
import Configuration
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConfiguration
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A store in a temporary directory, closed and removed when the test ends.
final class TestStore {
    let directory: TemporaryDirectory
    let store: DefaultsStore
    var path: String { directory.database }

    init() throws {
        directory = try TemporaryDirectory()
        store = try DefaultsStore(path: directory.database)
    }

    deinit { try? store.close() }
}

/// What a watch received, with the time it arrived.
struct Arrival<Value: Sendable>: Sendable {
    let value: Value
    let at: ContinuousClock.Instant
}

/// Runs a `ConfigReader` watch in a task of its own, recording every value it yields.
final class WatchRecorder<Value: Sendable>: Sendable {
    let arrivals = Collected<Arrival<Value>>()
    let ended = Collected<Bool>()
    private let task: Locked<Task<Void, any Error>?> = Locked(nil)

    init(_ watch: @escaping @Sendable (_ record: @escaping @Sendable (Value) -> Void) async throws -> Void) {
        let arrivals = self.arrivals, ended = self.ended
        let task = Task {
            defer { ended.append(true) }
            try await watch { value in arrivals.append(Arrival(value: value, at: .now)) }
        }
        self.task.withLock { $0 = task }
    }

    var values: [Value] { arrivals.all.map(\.value) }

    /// Waits (with a generous deadline) until a value satisfying `condition` has arrived.
    /// Two minutes: a watch's task runs on the cooperative pool, which the whole suite's
    /// blocking tests can hold for tens of seconds on a loaded two-core machine; the deadline
    /// is for a watch that never delivers, not a measure of speed.
    @discardableResult
    func waitFor(
        timeout: Duration = .seconds(120),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable (Value) -> Bool
    ) async -> Arrival<Value>? {
        let found = await arrivals.waitAsync(timeout: timeout) { $0.contains { condition($0.value) } }
        #expect(found, "no matching value arrived within \(timeout); got \(values)", sourceLocation: sourceLocation)
        return arrivals.all.first { condition($0.value) }
    }

    /// Waits until the watch has ended.
    func waitForEnd(timeout: Duration = .seconds(120)) async -> Bool {
        await ended.waitAsync(timeout: timeout) { !$0.isEmpty }
    }

    func cancel() { task.withLock { $0?.cancel() } }

    deinit { task.withLock { $0?.cancel() } }
}

/// The built `prefs` executable, next to the test bundle.
enum Prefs {
    static var executable: String {
        if let path = ProcessInfo.processInfo.environment["PREFS_EXECUTABLE"], !path.isEmpty { return path }
        return builtExecutable("prefs")
    }

    /// Runs `prefs --db database arguments…`, expecting success.
    static func run(database: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: executable), "prefs is missing at \(executable)",
                     sourceLocation: sourceLocation)
        ignoreSIGPIPE
        let child = try ChildProcess(executable, ["--db", database] + arguments)
        let outcome = try #require(await child.wait(timeout: .seconds(60)), "prefs \(arguments) did not finish",
                                   sourceLocation: sourceLocation)
        #expect(outcome.succeeded, "prefs \(arguments) failed: \(outcome.standardError)", sourceLocation: sourceLocation)
    }
}

/// Runs SQL in the `sqlite3` shell, suspending (no pool thread held) until it exits.
func shell(_ database: String, _ sql: String) async throws {
    _ = try await sqlite3(database, sql)
}

/// The `DefaultsError` code an expression throws, or nil.
func errorCode(_ body: () throws -> Void) -> DefaultsError.Code? {
    do {
        try body()
        return nil
    } catch let error as DefaultsError {
        return error.code
    } catch {
        return nil
    }
}
#endif
