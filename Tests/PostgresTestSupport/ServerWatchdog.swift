import ChildProcesses
import Foundation

/// A small `sh` process that shuts a throwaway server down and deletes its directory when this
/// process ends without doing so: a crash, a `kill -9`, Ctrl-C, or a normal exit with the
/// server still held (a `static let`, a leaked reference).
///
/// It reads its standard input, a pipe whose only writing end this object holds. The kernel
/// closes that end when this process ends, however it ends; the watchdog then sees end of file,
/// and if the directory still exists, sends the postmaster SIGINT (PostgreSQL's fast
/// shutdown), waits up to 10 s for it to remove its pid file (then SIGQUIT), and deletes the
/// directory. (A PgBouncer's watchdog sends SIGTERM, then SIGKILL.) ``release()`` (after a normal ``PostgresServer/remove()``) closes the end early;
/// the directory is gone by then, so the watchdog just exits. It ignores SIGINT, SIGHUP,
/// SIGTERM and SIGQUIT, so a Ctrl-C aimed at the test run does not take it down first.
final class ServerWatchdog: Sendable {
    /// The `sh`, started with its standard input kept open: that pipe is the lifeline.
    private let child: ChildProcess

    /// `$1` the directory, `$2` the pid file inside it, `$3` and `$4` the first and second
    /// signal (the second when the pid file outlives the first by 10 s).
    private static let script = """
        trap '' INT HUP TERM QUIT
        while read -r _; do :; done
        [ -d "$1" ] || exit 0
        pidfile="$1/$2"
        pid=$(head -n 1 "$pidfile" 2>/dev/null) && [ -n "$pid" ] && kill -"$3" "$pid" 2>/dev/null
        i=0
        while [ -e "$pidfile" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        if [ -e "$pidfile" ]; then
            pid=$(head -n 1 "$pidfile" 2>/dev/null) && [ -n "$pid" ] && kill -"$4" "$pid" 2>/dev/null
            sleep 1
        fi
        rm -rf "$1"
        """

    /// Starts the watchdog for `directory` (which holds the data directory `data`).
    /// - Throws: when the pipes or the `sh` process cannot be created.
    convenience init(directory: String) throws {
        try self.init(directory: directory, pidFile: "data/postmaster.pid", firstSignal: "INT", secondSignal: "QUIT")
    }

    /// Starts a watchdog for another kind of daemon in `directory`: its pid file `pidFile`
    /// (relative to `directory`, the pid on its first line), sent `firstSignal`, then
    /// `secondSignal` if the pid file is still there 10 s later (signal names without `SIG`:
    /// PgBouncer is given TERM, then KILL, for it removes its pid file on a clean exit only).
    /// - Throws: when the pipes or the `sh` process cannot be created.
    init(directory: String, pidFile: String, firstSignal: String, secondSignal: String) throws {
        child = try ChildProcess(
            "/bin/sh", ["-c", Self.script, "postgres-test-watchdog", directory, pidFile, firstSignal, secondSignal],
            keepsInputOpen: true
        )
    }

    /// Lets the watchdog exit now (it deletes the directory first if it still exists).
    func release() {
        child.closeInput()
    }
}
