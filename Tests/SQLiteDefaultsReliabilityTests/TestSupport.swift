import Foundation
import SQLiteDefaults
import Testing

/// A fresh directory under the system's temporary directory, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/sqlite-defaults-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    var database: String { path + "/defaults.sqlite" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A value behind an `NSLock` (a pthread mutex). The reliability suite runs under
/// ThreadSanitizer, which cannot see `Synchronization.Mutex` hand a contended lock over on
/// Linux (it does so in the kernel) and would report every such access as a race.
final class Locked<Value>: @unchecked Sendable {
    // Sendable proof: `value` is only touched inside `withLock`, while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Values delivered on other threads, collected for assertions; `wait` blocks (politely)
/// until a condition holds or a generous deadline passes.
final class Collected<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }

    /// Waits until `condition` holds for the collected items; returns whether it did.
    @discardableResult
    func wait(timeout: Duration = .seconds(15), until condition: ([Element]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            usleep(2_000)
        }
        return condition(all)
    }

    func wait(count: Int, timeout: Duration = .seconds(15)) -> Bool {
        wait(timeout: timeout) { $0.count >= count }
    }

    /// Like `wait`, but sleeps without holding a thread of the cooperative pool, so tasks
    /// that feed the collection (an `AsyncSequence` consumer) can run meanwhile.
    func waitAsync(timeout: Duration = .seconds(30), until condition: ([Element]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(all)
    }
}

/// Built executables live next to the test bundle's executable.
func builtExecutable(_ name: String) -> String {
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return me.deletingLastPathComponent().appendingPathComponent(name).path
}

struct ProcessResult {
    let status: Int32
    let output: String
    let error: String
}

/// Runs a program to completion and captures its output.
@discardableResult
func runProcess(_ executable: String, _ arguments: [String], input: String? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    let inputPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
    try process.run()
    if let input {
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try inputPipe.fileHandleForWriting.close()
    }
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus,
                         output: String(decoding: outData, as: UTF8.self),
                         error: String(decoding: errData, as: UTF8.self))
}

/// Runs the test helper executable.
@discardableResult
func runHelper(_ arguments: String...) throws -> ProcessResult {
    try runProcess(builtExecutable("DefaultsTestHelper"), arguments)
}

/// The `sqlite3` shell's path; tests that need it fail (not skip) when it is missing,
/// because CI installs it.
func sqlite3Path() throws -> String {
    for candidate in ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/bin/sqlite3"] where FileManager.default.isExecutableFile(atPath: candidate) {
        return candidate
    }
    throw DefaultsError(.cannotOpen, "the sqlite3 shell is not installed (apt-get install sqlite3)")
}

/// Runs SQL in the `sqlite3` shell against `database`; returns its trimmed output.
@discardableResult
func sqlite3(_ database: String, _ sql: String) throws -> String {
    let result = try runProcess(try sqlite3Path(), ["-batch", "-cmd", ".timeout 10000", database], input: sql)
    guard result.status == 0 else {
        throw DefaultsError(.sqlite, "sqlite3 failed (\(result.status)): \(result.error)")
    }
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// File permission bits of `path`.
func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

func fileBytes(_ path: String) -> Data? {
    FileManager.default.contents(atPath: path)
}

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
final class ChildProcess: Sendable {
    let lines = Collected<String>()
    let errors = Collected<String>()
    let pid: Int32
    private let process: Process
    private let input: Pipe

    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         directory: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe(), error = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        self.process = process
        self.input = input
        pid = process.processIdentifier
        for (pipe, sink) in [(output, lines), (error, errors)] {
            let handle = pipe.fileHandleForReading
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
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    func closeInput() {
        try? input.fileHandleForWriting.close()
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
    for key in store.keys() {
        rows[key] = canonical(try store.value(for: DefaultsKey<SQLiteValue?>(key)))
    }
    return rows
}

/// A store configuration that does not watch for other writers (for one-shot checks).
func quietConfiguration() -> DefaultsStore.Configuration {
    var configuration = DefaultsStore.Configuration()
    configuration.observesExternalChanges = false
    return configuration
}

/// Same format as the helper's `canonical`.
func canonical(_ value: SQLiteValue?) -> String {
    switch value {
    case nil, .null?: "nil"
    case .integer(let number)?: "i:\(number)"
    case .real(let number)?: "r:\(number.bitPattern)"
    case .text(let text)?: "t:" + Data(text.utf8).map { String(format: "%02x", $0) }.joined()
    case .blob(let bytes)?: "b:" + bytes.map { String(format: "%02x", $0) }.joined()
    }
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
