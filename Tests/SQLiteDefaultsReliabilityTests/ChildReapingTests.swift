import ChildProcesses
import DefaultsTestSupport
import Foundation
import Testing
import TestScheduling

/// How the suites see their child processes end (``ChildProcess``), which the crash loop's
/// "killed writer not seen to exit within 30 s" came down to.
///
/// Foundation's `Process` learned of every child's end on one shared thread, from a socket the
/// child inherited (not close-on-exec, so a child spawned by another thread at the same moment
/// could inherit it too), and that thread then blocked in `waitpid`. A child that closes what it
/// inherited while it keeps running (a daemon, a browser) held the shared thread for its whole
/// life, and no other child's end was seen meanwhile. Each child is now waited for on a thread
/// of its own, and inherits nothing but its standard streams.
@Suite("Child processes: reaped each on its own thread", .offThePool)
struct ChildReapingTests {
    /// Closes every descriptor above 2 it inherited, says so, then sleeps an hour (long past any
    /// starvation of this test under load: it is killed at the end).
    static let daemonLike = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done; echo closed; exec /bin/sleep 3600"#

    @Test("A child's end is seen while another child that closed its inherited descriptors runs on")
    func endSeenBesideADaemonLikeChild() async throws {
        let lines = Collected<String>()
        let daemon = try ChildProcess("/bin/bash", ["-c", Self.daemonLike], onLine: { lines.append($0) })
        defer { daemon.send(SIGKILL) }
        try #require(await lines.waitAsync(timeout: .seconds(30)) { $0.contains("closed") })
        // Before: this waited until the daemon-like child ended, a minute later.
        let quick = try ChildProcess("/bin/sh", ["-c", "exit 3"])
        let outcome = await quick.wait(timeout: .seconds(20))
        #expect(outcome?.status == 3 && outcome?.killedBySignal == false)
        let stillRunning = !daemon.isFinished
        let ended = stillRunning ? nil : await daemon.wait(timeout: .seconds(1))
        #expect(stillRunning, "the daemon-like child ended early: \(String(describing: ended))")
    }

    @Test("A child killed with SIGKILL is seen to end, by that signal, with its output read")
    func killedChildEnds() async throws {
        let lines = Collected<String>()
        // An hour: however long this test waits for a thread under load, the child cannot end by itself first.
        let child = try ChildProcess("/bin/sh", ["-c", "echo started; exec /bin/sleep 3600"], onLine: { lines.append($0) })
        defer { child.send(SIGKILL) }
        try #require(await lines.waitAsync(timeout: .seconds(30)) { $0.contains("started") })
        child.send(SIGKILL)
        let outcome = try #require(await child.wait(timeout: .seconds(30)))
        #expect(outcome.killedBySignal && outcome.status == SIGKILL, "\(outcome)")
        #expect(outcome.standardOutput == "started\n")
    }

    @Test("A child inherits its three standard streams and no other descriptor")
    func inheritsOnlyStandardStreams() async throws {
        // A descriptor without close-on-exec at a high number, as another library (or another
        // thread between its open and its fcntl) may hold one.
        let plain = open("/dev/null", O_RDONLY)
        try #require(plain >= 0)
        let high = fcntl(plain, F_DUPFD, 700)
        close(plain)
        defer { close(high) }
        try #require(high >= 700)
        // The shell's own descriptors, by a glob; the one the glob read them through is closed
        // again by the time the loop looks.
        let script = #"for f in /proc/$$/fd/*; do if [ -e "$f" ]; then echo "${f##*/}"; fi; done"#
        let child = try ChildProcess("/bin/bash", ["-c", script])
        let outcome = try #require(await child.wait(timeout: .seconds(30)))
        #expect(outcome.succeeded)
        #expect(outcome.standardOutput == "0\n1\n2\n", "the child held: \(outcome.standardOutput)")
    }

    @Test("A missing executable is a thrown error, not a child")
    func missingExecutable() {
        #expect(throws: POSIXError.self) { try ChildProcess("/nonexistent/program", []) }
    }

    @Test("A child that exits without reading its input ends with its status; the writer does not trap")
    func childThatIgnoresItsInput() async throws {
        // A shell that cannot load its library exits before it reads a byte. The input is more
        // than a pipe holds (64 KiB), so the write is still under way when the child is gone and
        // fails with EPIPE (SIGPIPE ignored, as DefaultsTestSupport's runProcess does);
        // FileHandle's `write(_:)` trapped on that, ending the whole test run.
        ignoreSIGPIPE
        let input = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        let child = try ChildProcess("/bin/sh", ["-c", "exit 127"], input: input)
        let outcome = try #require(await child.wait(timeout: .seconds(60)))
        #expect(outcome.status == 127 && !outcome.killedBySignal)
    }
}
