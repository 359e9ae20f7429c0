#if Console && Prefs
import ChildProcesses
import DefaultsTestSupport
import Foundation
import Testing

/// A running `prefs serve` process: its output collected line by line, killed when released.
final class ServeProcess: Sendable {
    let lines = Collected<String>()
    let errorLines = Collected<String>()
    private let child: ChildProcess

    static var executable: String {
        if let path = ProcessInfo.processInfo.environment["PREFS_EXECUTABLE"], !path.isEmpty { return path }
        return builtExecutable("prefs")
    }

    /// Starts `prefs --db DATABASE serve ARGUMENTS…`.
    init(database: String, _ arguments: [String] = ["--port", "0"]) throws {
        let lines = self.lines, errorLines = self.errorLines
        child = try ChildProcess(Self.executable, ["--db", database, "serve"] + arguments,
                                 onLine: { lines.append($0) }, onErrorLine: { errorLines.append($0) })
    }

    /// Waits for the first line and returns the port it names, or nil if the process failed.
    func port(timeout: Duration = .seconds(60)) async -> Int? {
        _ = await lines.waitAsync(timeout: timeout) { !$0.isEmpty || !errorLines.all.isEmpty }
        guard let first = lines.all.first, let range = first.range(of: #"http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) else { return nil }
        let url = first[range]
        return Int(url.dropFirst("http://127.0.0.1:".count).dropLast())
    }

    func send(_ signal: Int32) { child.send(signal) }

    /// The exit status after it ends, or nil if it was still running after `timeout`.
    func exitStatus(timeout: Duration = .seconds(30)) async -> Int32? {
        await child.wait(timeout: timeout)?.status
    }

    deinit { child.send(SIGKILL) }
}
#endif
