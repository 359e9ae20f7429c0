import Foundation

/// `posix_spawn` with every descriptor from 3 up closed in the child, and a thread of its own
/// that waits for it: how ``ChildProcess`` starts and reaps a program.
///
/// Not Foundation's `Process`: on Linux it learns that a child ended when a socket pair it hands
/// the child reaches end of file, on one run-loop thread shared by every child of the process,
/// and that thread then blocks in `waitpid` for the child it heard of. The pair is not
/// close-on-exec, so a child that another thread spawns at the same moment inherits it (and a
/// grandchild inherits it from the child): the first child is then not seen to end until that
/// unrelated process ends too. And a child that closes its inherited descriptors while it runs
/// (a daemon, a browser) holds the shared thread in `waitpid` for its whole life, so no other
/// child's end is seen meanwhile. Under the slow tier's load (thousands of open descriptors,
/// dozens of children) a writer killed with SIGKILL went unseen for more than 30 s that way.
/// Here each child is waited for by `waitpid` on a thread of its own, whatever else runs.
enum Spawn {
    /// Starts `executable` with `arguments` and `environment` (the whole environment), standard
    /// input, output and error from the given descriptors, in `directory` when given, in a
    /// process group of its own (as `Process` does). No other descriptor is inherited.
    /// - Returns: the child's process identifier.
    /// - Throws: `POSIXError` when the child cannot be started (no such file, not executable…).
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: String?,
        input: Int32, output: Int32, error: Int32
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy, so the child keeps exactly these three.
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, error, 2)
        addCloseFrom3(&actions)
        if let directory {
            guard let changeDirectory = symbol("posix_spawn_file_actions_addchdir_np") else {
                throw POSIXError(.ENOSYS)
            }
            _ = unsafeBitCast(changeDirectory, to: AddChangeDirectory.self)(&actions, directory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }

        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return pid
    }

    /// Waits for `pid` on a new thread (blocking `waitpid`, never a thread of the cooperative
    /// pool or Dispatch's) and hands `ended` the exit status, or the signal that ended it.
    static func reap(_ pid: pid_t, ended: @escaping @Sendable (_ status: Int32, _ signaled: Bool) -> Void) {
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                // EINTR: again. ECHILD: someone else reaped it (no one in this package does);
                // report it as ended rather than waiting forever.
                if errno != EINTR { ended(-1, false); return }
            }
            let signal = status & 0x7F
            if signal == 0 { ended((status >> 8) & 0xFF, false) } else { ended(signal, true) }
        }
        // A few pages suffice: the thread only waits.
        thread.stackSize = 64 * 1024
        thread.start()
    }

    // MARK: - glibc extensions, looked up at run time

    // Swift's Glibc module is built without _GNU_SOURCE, which these declarations need (as
    // `pipe2` in CloseOnExecPipe): glibc has had them since 2.34 and 2.29.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)  // RTLD_DEFAULT
    }

    /// Closes every descriptor from 3 up in the child; before glibc 2.34, those open now
    /// (every descriptor this package opens is close-on-exec besides, so one that another
    /// thread opens meanwhile does not reach the child either).
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
}
