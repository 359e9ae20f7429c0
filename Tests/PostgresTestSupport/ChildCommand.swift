import Foundation

/// One command run to completion with `posix_spawn`, its output collected in files.
///
/// Not Foundation's `Process` (nor `ChildProcess`, built on it): on Linux, `Process` learns
/// that a child ended when a socket it hands the child reaches end of file, and the postmaster
/// that `pg_ctl start` leaves running inherits that socket, so `pg_ctl start` would never be
/// seen to finish. Here the child gets standard input from /dev/null, standard output and
/// error in files, and no other descriptor (`closefrom(3)` in the child), and it is waited for
/// with `waitpid`.
struct ChildCommand: Sendable {
    /// What a finished command printed.
    struct Result: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
        /// Standard error, or standard output when the command wrote nothing on standard error.
        var diagnostics: String { standardError.isEmpty ? standardOutput : standardError }
    }

    let arguments: [String]
    let directory: String
    let environment: [String: String]
    /// How the command is shown in errors.
    let display: String

    /// Runs the command (`arguments[0]` is an absolute path) in `directory` and waits for it.
    /// Output files are created in `directory` and deleted afterwards.
    /// - Returns: the exit status (128 + the signal number when a signal ended it) and output.
    /// - Throws: `PostgresServerError` when it cannot be started, or when it runs longer than
    ///   `timeout` (it is killed then).
    func run(timeout: Duration) throws -> Result {
        let stem = directory + "/.command-" + UUID().uuidString
        let outputPath = stem + ".out"
        let errorPath = stem + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { if output >= 0 { close(output) } }
        let error = open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { if error >= 0 { close(error) } }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if input >= 0 { close(input) } }
        guard output >= 0, error >= 0, input >= 0 else {
            throw PostgresServerError("cannot create output files in \(directory): \(Self.lastError())", command: display)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, error, 2)
        Self.addCloseFrom3(&actions)
        Self.addChangeDirectory(&actions, directory)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with default signal handling (this process may ignore SIGPIPE).
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment
            .filter { !$0.key.hasPrefix("PG") }  // PGHOST, PGPORT, PGUSER… of the developer's shell
            .merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw PostgresServerError(
                "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))", command: display
            )
        }

        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0, errno != EINTR {
                throw PostgresServerError("lost track of the child (waitpid: \(Self.lastError()))", command: display)
            }
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                throw PostgresServerError(
                    "timed out after \(timeout)", command: display,
                    output: Self.read(errorPath) + Self.read(outputPath)
                )
            }
            usleep(2_000)
        }
        let signal = status & 0x7F
        return Result(
            status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
            standardOutput: Self.read(outputPath),
            standardError: Self.read(errorPath)
        )
    }

    // MARK: - glibc extensions, looked up at run time

    // Swift's Glibc module is built without _GNU_SOURCE, which these declarations need (as
    // `pipe2` in ChildProcesses' CloseOnExecPipe): glibc has had them since 2.34 and 2.29.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)  // RTLD_DEFAULT
    }

    /// Closes every descriptor from 3 up in the child; before glibc 2.34, those open now.
    private static func addCloseFrom3(_ actions: inout posix_spawn_file_actions_t) {
        if let closeFrom = symbol("posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(closeFrom, to: AddCloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    private static func addChangeDirectory(_ actions: inout posix_spawn_file_actions_t, _ directory: String) {
        guard let changeDirectory = symbol("posix_spawn_file_actions_addchdir_np") else { return }
        _ = unsafeBitCast(changeDirectory, to: AddChangeDirectory.self)(&actions, directory)
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }

    private static func read(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
