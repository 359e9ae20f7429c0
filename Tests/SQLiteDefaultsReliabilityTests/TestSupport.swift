import ChildProcesses
import DefaultsTestSupport
import Foundation
import SQLiteDefaults

// MARK: - Reliability suite support

/// Runs the reliability helper executable to completion.
@discardableResult
func runReliabilityHelper(_ arguments: String...) throws -> ProcessResult {
    try runProcess(builtExecutable("ReliabilityHelper"), arguments)
}

/// A number from the environment (for longer local runs), or `fallback`.
func environmentNumber(_ name: String, default fallback: Double) -> Double {
    ProcessInfo.processInfo.environment[name].flatMap(Double.init) ?? fallback
}

/// A child process whose stdout lines are collected as they arrive (so a test can wait for
/// one with a deadline), with a stdin to talk to it and a way to kill it.
final class HelperProcess: Sendable {
    let lines = Collected<String>()
    let errors = Collected<String>()
    let pid: Int32
    private let process: Process
    private let input: CloseOnExecPipe

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         directory: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = try CloseOnExecPipe(), error = try CloseOnExecPipe(), input = try CloseOnExecPipe()
        try process.run(output: output, error: error, input: input)
        self.process = process
        self.input = input
        pid = process.processIdentifier
        for (pipe, sink) in [(output, lines), (error, errors)] {
            let handle = pipe.reading
            let thread = Thread {
                var pending = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        sink.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                if !pending.isEmpty { sink.append(String(decoding: pending, as: UTF8.self)) }
                sink.append("\u{4}")  // end of stream
            }
            thread.start()
        }
    }

    /// Waits for a stdout line matching `predicate` (among all lines so far); returns it.
    func waitForLine(timeout: Duration = .seconds(30), where predicate: @escaping (String) -> Bool) -> String? {
        lines.wait(timeout: timeout) { $0.contains(where: predicate) || $0.last == "\u{4}" }
        return lines.all.first(where: predicate)
    }

    var output: [String] { lines.all.filter { $0 != "\u{4}" } }
    var errorOutput: String { errors.all.filter { $0 != "\u{4}" }.joined(separator: "\n") }

    func send(_ line: String) {
        input.writing.write(Data((line + "\n").utf8))
    }

    func closeInput() {
        try? input.writing.close()
    }

    func kill(_ signal: Int32 = SIGKILL) {
        _ = Foundation.kill(pid, signal)
    }

    /// Waits for the process to end and its output to be read; returns false on timeout.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(60)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        guard !process.isRunning else { return false }
        lines.wait(timeout: .seconds(5)) { $0.last == "\u{4}" }
        errors.wait(timeout: .seconds(5)) { $0.last == "\u{4}" }
        return true
    }

    var terminationStatus: Int32 { process.terminationStatus }
    var diedOfSignal: Bool { process.terminationReason == .uncaughtSignal }
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
