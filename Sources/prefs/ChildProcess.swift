import Foundation
import Synchronization

/// A child process whose standard output and error are collected, line by line, as they
/// arrive (for `demo`). Reads happen on threads of their own, never on the cooperative pool.
final class ChildProcess: Sendable {
    /// How a finished child ended.
    struct Outcome: Sendable {
        /// The exit status, or the signal number when ``killedBySignal`` is true.
        let status: Int32
        let killedBySignal: Bool
        let standardOutput: String
        let standardError: String

        var succeeded: Bool { !killedBySignal && status == 0 }
    }

    private struct State {
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
        var openStreams = 2
        var termination: (status: Int32, signaled: Bool)?
    }

    /// The child's state, shared with the reader threads and the termination handler.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    let commandLine: String
    private let processIdentifier: Int32
    private let shared: Shared

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: variables to set on top of this process's environment.
    ///   - input: what the child reads on standard input (nothing when nil).
    ///   - onLine: sees each line of standard output as it arrives.
    ///   - onErrorLine: sees each line of standard error as it arrives.
    /// - Throws: when the executable cannot be started.
    init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        input: [UInt8]? = nil,
        onLine: (@Sendable (String) -> Void)? = nil,
        onErrorLine: (@Sendable (String) -> Void)? = nil
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let inputPipe = try input.map { _ in try Self.closeOnExecPipe() }
        process.standardInput = inputPipe?.reading ?? FileHandle.nullDevice
        let output = try Self.closeOnExecPipe()
        let error = try Self.closeOnExecPipe()
        process.standardOutput = output.writing
        process.standardError = error.writing
        let shared = Shared()
        self.shared = shared
        self.commandLine = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        process.terminationHandler = { process in
            let status = process.terminationStatus
            let signaled = process.terminationReason == .uncaughtSignal
            shared.state.withLock { $0.termination = (status, signaled) }
        }
        try process.run()
        processIdentifier = process.processIdentifier
        // The child has its copies; without closing ours the streams would never end.
        try? output.writing.close()
        try? error.writing.close()
        try? inputPipe?.reading.close()

        Self.drain(output.reading, into: shared, isError: false, onLine: onLine)
        Self.drain(error.reading, into: shared, isError: true, onLine: onErrorLine)
        if let inputPipe, let input {
            let writer = inputPipe.writing
            // A thread of its own, like the readers (see `drain`).
            Thread {
                // A child that exits without reading raises SIGPIPE here: callers that pass input
                // either ignore SIGPIPE (the tests do) or pass what fits a pipe buffer (64 KiB).
                writer.write(Data(input))
                try? writer.close()
            }.start()
        }
    }

    /// A pipe whose ends are close-on-exec from the start. Foundation's `Process` on Linux
    /// closes, in each child, only the descriptors open when it began to spawn it: a plain
    /// `Pipe` made meanwhile by another thread would leak into that child and keep this
    /// stream open for as long as that child lives.
    private static func closeOnExecPipe() throws -> (reading: FileHandle, writing: FileHandle) {
        // `pipe2` is declared by glibc only for _GNU_SOURCE, which Swift's Glibc module does
        // not define: look it up at run time (glibc has had it since 2.9).
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else {  // RTLD_DEFAULT
            throw PrefsError("cannot create a pipe: this C library has no pipe2")
        }
        var ends: [Int32] = [-1, -1]
        guard unsafeBitCast(symbol, to: Pipe2.self)(&ends, O_CLOEXEC) == 0 else {
            throw PrefsError("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        return (FileHandle(fileDescriptor: ends[0], closeOnDealloc: true), FileHandle(fileDescriptor: ends[1], closeOnDealloc: true))
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) {
        kill(processIdentifier, signal)
    }

    /// Waits until the child has exited and its output is read; after `timeout` it is killed
    /// and nil returned.
    func wait(timeout: Duration) async -> Outcome? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let outcome = finishedOutcome() { return outcome }
            try? await Task.sleep(for: .milliseconds(2))
        }
        if let outcome = finishedOutcome() { return outcome }  // it may have ended while we slept
        send(SIGKILL)
        return nil
    }

    private func finishedOutcome() -> Outcome? {
        shared.state.withLock { state in
            guard let termination = state.termination, state.openStreams == 0 else { return nil }
            return Outcome(
                status: termination.status,
                killedBySignal: termination.signaled,
                standardOutput: String(decoding: state.standardOutput, as: UTF8.self),
                standardError: String(decoding: state.standardError, as: UTF8.self)
            )
        }
    }

    private static func drain(_ handle: FileHandle, into shared: Shared, isError: Bool, onLine: (@Sendable (String) -> Void)?) {
        // A dedicated thread, not a Dispatch work item: a blocking read holds its thread for the
        // child's whole life, and Linux's Dispatch pool (sized to the CPUs, grown slowly) starved
        // under many concurrent children, so a finished child's output went unread for seconds.
        Thread {
            var pending: [UInt8] = []
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                shared.state.withLock { state in
                    if isError { state.standardError += chunk } else { state.standardOutput += chunk }
                }
                guard let onLine else { continue }
                pending += chunk
                while let newline = pending.firstIndex(of: 0x0A) {
                    onLine(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            shared.state.withLock { $0.openStreams -= 1 }
        }.start()
    }

    /// The path of the running executable (`/proc/self/exe` resolved), to start another `prefs`.
    static func currentExecutable() -> String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return path
        }
        return Bundle.main.executablePath
    }

    /// The first executable named `name` on `$PATH`, like `command -v`.
    static func findOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
