import Foundation

/// Why a throwaway PostgreSQL server could not be started, stopped or queried: what was being
/// done, the command that failed (when one did), and what it or the server said.
///
/// ```swift
/// do {
///     _ = try server.psql("SELECT 1/0")
/// } catch let error as PostgresServerError {
///     #expect(error.output.contains("division by zero"))
/// }
/// ```
public struct PostgresServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in words: "initdb failed", "pg_ctl start failed", "psql failed"…
    public let message: String
    /// The command line that failed, when a command failed.
    public let command: String?
    /// The command's exit status, when it exited.
    public let status: Int32?
    /// The command's standard error (or, when it wrote none, its standard output).
    public let output: String
    /// The end of the server's log, when the server was involved.
    public let logTail: String

    /// Whether the server's log says its TCP port was taken (the start can be retried on another).
    var portInUse: Bool {
        logTail.contains("Address already in use") || logTail.contains("could not create any TCP/IP sockets")
    }

    init(_ message: String, command: String? = nil, status: Int32? = nil, output: String = "", logTail: String = "") {
        self.message = message
        self.command = command
        self.status = status
        self.output = output
        self.logTail = logTail
    }

    public var description: String {
        var text = "PostgreSQL test server: \(message)"
        if let command { text += "\n$ \(command)" }
        if let status { text += "\n(exit status \(status))" }
        let output = output.trimmingCharacters(in: .whitespacesAndNewlines)
        if !output.isEmpty { text += "\n\(output)" }
        let log = logTail.trimmingCharacters(in: .whitespacesAndNewlines)
        if !log.isEmpty { text += "\n-- server log (end) --\n\(log)" }
        return text
    }
}
