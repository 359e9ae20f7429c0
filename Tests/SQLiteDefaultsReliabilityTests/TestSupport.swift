import ChildProcesses
import DefaultsTestSupport
import Foundation
import SQLiteDefaults

// MARK: - Reliability suite support

/// Runs the reliability helper executable to completion (blocking: for `onOwnThread { }` bodies).
@discardableResult
func runReliabilityHelper(_ arguments: String...) throws -> ProcessResult {
    try runProcess(builtExecutable("ReliabilityHelper"), arguments)
}

/// Runs the reliability helper executable to completion, suspending meanwhile.
@discardableResult
func runReliabilityHelper(_ arguments: String...) async throws -> ProcessResult {
    try await runProcess(builtExecutable("ReliabilityHelper"), arguments)
}

/// A number from the environment (for longer local runs), or `fallback`.
func environmentNumber(_ name: String, default fallback: Double) -> Double {
    ProcessInfo.processInfo.environment[name].flatMap(Double.init) ?? fallback
}

/// A child process (a ``ChildProcess``) whose stdout lines are collected as they arrive, so a
/// test can wait for one with a deadline, with a stdin to talk to it and a way to kill it.
final class HelperProcess: Sendable {
    let lines = Collected<String>()
    let errors = Collected<String>()
    let pid: Int32
    private let child: ChildProcess
    private let outcome = Locked<ChildProcess.Outcome?>(nil)

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         directory: String? = nil) throws {
        let lines = self.lines, errors = self.errors
        child = try ChildProcess(
            executable, arguments,
            environment: environment ?? [:], inheritsEnvironment: environment == nil,
            directory: directory, keepsInputOpen: true,
            onLine: { lines.append($0) }, onErrorLine: { errors.append($0) }
        )
        pid = child.processIdentifier
    }

    /// Waits for a stdout line matching `predicate` (among all lines so far); returns it, or nil
    /// when the deadline passes or the child ends without printing one. Blocks its thread: for
    /// `onOwnThread { }` bodies; async code gets the overload below.
    func waitForLine(timeout: Duration = .seconds(30), where predicate: @escaping (String) -> Bool) -> String? {
        let child = self.child
        lines.wait(timeout: timeout) { $0.contains(where: predicate) || child.isFinished }
        return lines.all.first(where: predicate)
    }

    /// ``waitForLine(timeout:where:)``, suspending instead of holding a thread of the pool.
    func waitForLine(timeout: Duration = .seconds(30), where predicate: @escaping (String) -> Bool) async -> String? {
        let child = self.child
        _ = await lines.waitAsync(timeout: timeout) { $0.contains(where: predicate) || child.isFinished }
        return lines.all.first(where: predicate)
    }

    var output: [String] { lines.all }
    var errorOutput: String { errors.all.joined(separator: "\n") }

    func send(_ line: String) {
        child.writeInput(Array((line + "\n").utf8))
    }

    func closeInput() {
        child.closeInput()
    }

    func kill(_ signal: Int32 = SIGKILL) {
        child.send(signal)
    }

    /// Waits for the process to end and its output to be read; returns false on timeout (the
    /// child is then killed). Blocks its thread: for `onOwnThread { }` bodies.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(60)) -> Bool {
        guard let ended = child.waitBlocking(timeout: timeout) else { return false }
        outcome.withLock { $0 = ended }
        return true
    }

    /// ``waitForExit(timeout:)``, suspending instead of holding a thread of the pool.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(60)) async -> Bool {
        guard let ended = await child.wait(timeout: timeout) else { return false }
        outcome.withLock { $0 = ended }
        return true
    }

    var terminationStatus: Int32 { outcome.withLock { $0?.status ?? -1 } }
    var diedOfSignal: Bool { outcome.withLock { $0?.killedBySignal ?? false } }
}

/// The rows of the `defaults` table as one canonical text per key (the helper's format).
func canonicalRows(_ database: String) throws -> [String: String] {
    let store = try DefaultsStore(path: database, configuration: quietConfiguration())
    var rows: [String: String] = [:]
    for key in try store.keys() {
        rows[key] = canonical(try store.value(for: DefaultsKey<SQLiteValue?>(key)))
    }
    return rows
}

/// A store configuration that does not watch for other writers (for one-shot checks).
func quietConfiguration() -> DefaultsStore.Configuration {
    var configuration = DefaultsStore.Configuration()
    configuration.externalChangeDetection = .off
    return configuration
}

/// Parses "name=value" fields of a line into a dictionary of integers.
func fields(_ line: String) -> [String: Int] {
    var result: [String: Int] = [:]
    for part in line.split(separator: " ") {
        let pair = part.split(separator: "=", maxSplits: 1)
        if pair.count == 2, let number = Int(pair[1]) { result[String(pair[0])] = number }
    }
    return result
}

/// Figures the suite measured, printed in one block at the end of each test for the README table.
func reportFigure(_ text: String) {
    print("[reliability] \(text)")
}
