import Foundation
import SQLiteDefaults
import Synchronization
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

/// Values delivered on other threads, collected for assertions; `wait` blocks (politely)
/// until a condition holds or a generous deadline passes.
final class Collected<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

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
