import Foundation
import SanitizerMutex

/// A child process whose standard output and error are collected, line by line, as they
/// arrive: the one way `prefs demo` and the test suites start programs (`prefs`, the `sqlite3`
/// shell, the helper executables). Reads, and the `waitpid` that sees the child end, happen on
/// threads of their own, never on the cooperative pool; waiting is offered both as `async`
/// (``wait(timeout:)``, which suspends) and blocking (``waitBlocking(timeout:)``) for
/// synchronous tests and threads of their own. The child inherits no descriptor but its three
/// standard streams (see `Spawn`).
public final class ChildProcess: Sendable {
    /// How a finished child ended.
    public struct Outcome: Sendable {
        /// The exit status, or the signal number when ``killedBySignal`` is true.
        public let status: Int32
        /// Whether a signal ended the child.
        public let killedBySignal: Bool
        /// Everything the child wrote on standard output, as UTF-8 (invalid bytes replaced).
        public let standardOutput: String
        /// Everything the child wrote on standard error, as UTF-8 (invalid bytes replaced).
        public let standardError: String

        /// Whether the child exited with status 0.
        public var succeeded: Bool { !killedBySignal && status == 0 }
    }

    private struct State {
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
        var openStreams = 2
        var termination: (status: Int32, signaled: Bool)?
    }

    /// The child's state, shared with the reader threads and the reaper thread.
    private final class Shared: Sendable {
        // A pthread lock (ThreadSanitizer follows it): child processes are never a hot path.
        let state = PthreadMutex(State())
    }

    /// The executable's name and the arguments, for messages.
    public let commandLine: String
    /// The child's process identifier.
    public let processIdentifier: Int32
    private let shared: Shared
    /// The write end of the child's standard input while it is kept open (see `keepsInputOpen`).
    private let openInput: FileHandle?

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: variables to set on top of this process's environment (or, when
    ///     `inheritsEnvironment` is false, the child's whole environment).
    ///   - inheritsEnvironment: whether the child starts from this process's environment.
    ///   - directory: the child's working directory (this process's when nil).
    ///   - input: what the child reads on standard input (nothing when nil); then it sees the end.
    ///   - keepsInputOpen: leaves standard input open after `input` for ``writeInput(_:)``,
    ///     until ``closeInput()``.
    ///   - onLine: sees each line of standard output as it arrives.
    ///   - onErrorLine: sees each line of standard error as it arrives.
    ///   - standardOutput: where the child's standard output goes instead of being collected
    ///     (`/dev/full`, to see how it handles a failing write); ``Outcome/standardOutput`` is then empty.
    /// - Throws: `POSIXError` when a pipe cannot be created or the executable cannot be started
    ///   (`ENOENT`, `EACCES`…).
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        inheritsEnvironment: Bool = true,
        directory: String? = nil,
        input: [UInt8]? = nil,
        keepsInputOpen: Bool = false,
        standardOutput: FileHandle? = nil,
        onLine: (@Sendable (String) -> Void)? = nil,
        onErrorLine: (@Sendable (String) -> Void)? = nil
    ) throws {
        // Absolute before the child changes directory, as `Process` resolved it.
        let path = URL(fileURLWithPath: executable).path
        let variables = inheritsEnvironment
            ? ProcessInfo.processInfo.environment.merging(environment) { $1 }
            : environment
        let inputPipe = (input != nil || keepsInputOpen) ? try CloseOnExecPipe() : nil
        let output = try CloseOnExecPipe()
        let error = try CloseOnExecPipe()
        let nullDevice = inputPipe == nil ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1
        defer { if nullDevice >= 0 { close(nullDevice) } }
        guard inputPipe != nil || nullDevice >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let shared = Shared()
        self.shared = shared
        self.commandLine = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        let pid = try Spawn.start(
            path, arguments, environment: variables, directory: directory,
            input: inputPipe?.reading.fileDescriptor ?? nullDevice,
            output: standardOutput?.fileDescriptor ?? output.writing.fileDescriptor,
            error: error.writing.fileDescriptor
        )
        // This process's copies of the child's ends: each stream ends when the child exits.
        try? output.writing.close()
        try? error.writing.close()
        try? inputPipe?.reading.close()
        processIdentifier = pid
        Spawn.reap(pid) { status, signaled in
            shared.state.withLock { $0.termination = (status, signaled) }
        }

        Self.drain(output.reading, into: shared, isError: false, onLine: onLine)
        Self.drain(error.reading, into: shared, isError: true, onLine: onErrorLine)
        openInput = keepsInputOpen ? inputPipe?.writing : nil
        if let inputPipe, let input {
            let writer = inputPipe.writing
            // A thread of its own, like the readers (see `drain`).
            Thread {
                // A child that exits without reading raises SIGPIPE here: callers that pass input
                // either ignore SIGPIPE (the tests do) or pass what fits a pipe buffer (64 KiB).
                // Ignored, the write fails with EPIPE, which is dropped: the child's status says
                // what happened. (`write(_:)` without `contentsOf:` traps on any error.)
                try? writer.write(contentsOf: Data(input))
                if !keepsInputOpen { try? writer.close() }
            }.start()
        }
    }

    /// Writes `bytes` to the child's standard input (kept open by `keepsInputOpen`); does
    /// nothing once it is closed or when it was not kept open.
    public func writeInput(_ bytes: [UInt8]) {
        try? openInput?.write(contentsOf: Data(bytes))
    }

    /// Closes the child's standard input: it reads end of file.
    public func closeInput() {
        try? openInput?.close()
    }

    /// Whether the child has exited and all its output is read.
    public var isFinished: Bool { finishedOutcome() != nil }

    /// Sends `signal` to the child; does nothing once it has been reaped (its process
    /// identifier may then be another process's).
    public func send(_ signal: Int32) {
        shared.state.withLock { state in
            if state.termination == nil { kill(processIdentifier, signal) }
        }
    }

    /// Waits until the child has exited and its output is read; after `timeout` it is killed
    /// and nil returned.
    public func wait(timeout: Duration) async -> Outcome? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let outcome = finishedOutcome() { return outcome }
            try? await Task.sleep(for: .milliseconds(2))
        }
        if let outcome = finishedOutcome() { return outcome }  // it may have ended while we slept
        send(SIGKILL)
        return nil
    }

    /// Like ``wait(timeout:)``, blocking the calling thread: for synchronous tests and tools.
    public func waitBlocking(timeout: Duration) -> Outcome? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let outcome = finishedOutcome() { return outcome }
            usleep(2_000)
        }
        if let outcome = finishedOutcome() { return outcome }
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
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            let descriptor = handle.fileDescriptor
            while true {
                // read(2) itself, not `availableData`: only a read of 0 bytes is the end of the
                // child's output; a read interrupted by a signal (EINTR) is tried again, where an
                // empty `Data` would have been taken for the end and the rest of the output lost.
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count < 0 && errno == EAGAIN { usleep(1_000); continue }  // not expected: the pipes block
                if count <= 0 { break }
                let chunk = Array(buffer[..<count])
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
            // The last line may lack its newline (a child killed mid-line, or `printf`).
            if let onLine, !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
            shared.state.withLock { $0.openStreams -= 1 }
        }.start()
    }

    /// The path of the running executable (`/proc/self/exe` resolved), to start another `prefs`.
    public static func currentExecutable() -> String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return path
        }
        return Bundle.main.executablePath
    }

    /// The first executable named `name` on `$PATH`, like `command -v`.
    public static func findOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
