import ChildProcesses
import Foundation
import Synchronization

/// Starting, finding and stopping the pgbouncer process.
extension PgBouncer {
    /// Writes the configuration for `port` and starts `pgbouncer -d`, then waits until the
    /// port accepts connections.
    static func launch(_ executable: String, _ configuration: Configuration, port: Int, installation: PostgresInstallation) throws {
        let directory = configuration.directory
        let iniPath = directory + "/pgbouncer.ini"
        let userListPath = directory + "/userlist.txt"
        let logFile = directory + "/pgbouncer.log"
        let logStart = (try? FileManager.default.attributesOfItem(atPath: logFile)[.size] as? Int) ?? 0
        do {
            try configuration.ini(port: port).write(toFile: iniPath, atomically: false, encoding: .utf8)
            try configuration.userList.write(toFile: userListPath, atomically: false, encoding: .utf8)
        } catch {
            throw PostgresServerError("cannot write PgBouncer's configuration in \(directory): \(error)")
        }
        // The password is in both files: readable by PgBouncer's account alone.
        for path in [iniPath, userListPath] {
            try installation.handOver(path)
            guard chmod(path, 0o600) == 0 else {
                throw PostgresServerError("cannot make \(path) private: \(String(cString: strerror(errno)))")
            }
        }
        // PgBouncer needs a descriptor per client and per server connection; the usual soft
        // limit (1024) would cap it below max_client_conn. Raised in the child's shell, not
        // with setrlimit here: the test process keeps its own limit, and runuser's PAM session
        // (pam_limits) may reset limits set before it. The soft limit may rise to the hard
        // one without privileges; past it, PgBouncer starts anyway and logs a warning.
        let script = """
            want=$1; hard=$(ulimit -H -n)
            if [ "$hard" != unlimited ] && [ "$hard" -lt "$want" ]; then want=$hard; fi
            ulimit -S -n "$want" 2>/dev/null
            exec "$2" -d "$3"
            """
        let arguments = ["-c", script, "pgbouncer-start", String(configuration.openFiles), executable, iniPath]
        let result = try installation.run("/bin/sh", arguments, asServerAccount: true, in: directory, timeout: .seconds(60))
        guard result.status == 0 else {
            throw PostgresServerError(
                "pgbouncer -d failed", command: PostgresInstallation.commandLine(executable, ["-d", iniPath]),
                status: result.status, output: result.diagnostics,
                logTail: PostgresServer.tail(of: logFile, maxBytes: 4_000, from: logStart)
            )
        }
        // `-d` returns once the daemon has forked, before it listens: wait for the port.
        let pidFile = directory + "/pgbouncer.pid"
        let deadline = ContinuousClock.now + .seconds(30)
        var failure = "did not accept connections on 127.0.0.1:\(port) within 30 s"
        while true {
            let pid = readPid(pidFile)
            if let pid, processIsAlive(pid), acceptsConnections(port: port) { return }
            // A daemon that has exited (it removes its pid file on the way out) will not listen.
            if let pid, !processIsAlive(pid) {
                failure = "exited before accepting connections"
                break
            }
            if pid == nil, PostgresServer.tail(of: logFile, maxBytes: 4_000, from: logStart).contains("FATAL") {
                failure = "exited before accepting connections"
                break
            }
            if ContinuousClock.now >= deadline { break }
            usleep(10_000)
        }
        terminate(pidFile: pidFile)
        throw PostgresServerError(
            "PgBouncer \(failure)", command: PostgresInstallation.commandLine(executable, ["-d", iniPath]),
            logTail: PostgresServer.tail(of: logFile, maxBytes: 4_000, from: logStart)
        )
    }

    /// SIGTERM to the pid in `pidFile`, then SIGKILL after 10 s; waits until the process is
    /// gone (or a zombie: once PgBouncer daemonizes, its parent is whatever reaps orphans,
    /// which in a container may never do so). Removes a pid file SIGKILL left behind.
    static func terminate(pidFile: String) {
        guard let pid = readPid(pidFile) else { return }
        for (signal, seconds) in [(SIGTERM, 10), (SIGKILL, 5)] {
            guard processIsAlive(pid) else { break }
            kill(pid, signal)
            let deadline = ContinuousClock.now + .seconds(seconds)
            while processIsAlive(pid), ContinuousClock.now < deadline { usleep(10_000) }
        }
        unlink(pidFile)
    }

    static func readPid(_ pidFile: String) -> pid_t? {
        guard let contents = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let line = contents.split(separator: "\n").first,
              let pid = pid_t(line.trimmingCharacters(in: .whitespaces)), pid > 0
        else { return nil }
        return pid
    }

    /// Whether `pid` runs: it exists (`kill(pid, 0)`; EPERM means it exists, as someone
    /// else's) and is not a zombie (state `Z` in `/proc/PID/stat`, after the command's `)`).
    static func processIsAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds now (it is closed at once).
    static func acceptsConnections(port: Int) -> Bool {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian  // 127.0.0.1
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected == 0
    }
}
