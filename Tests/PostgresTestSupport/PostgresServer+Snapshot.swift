import ChildProcesses
import Foundation

extension PostgresServer {
    /// Copies the stopped server's data directory, ownership and modes kept (`cp -a`), and
    /// returns the copy's path: PostgreSQL's state at this moment, for ``restore(_:)``. A
    /// backup taken the crude way, as an operator might.
    ///
    /// ```swift
    /// try server.stopServer()
    /// let backup = try server.snapshot()
    /// try server.startServer()
    /// ```
    /// - Throws: ``PostgresServerError`` when the server is running or the copy fails.
    public func snapshot() throws -> String {
        guard !isRunning else { throw PostgresServerError("stop the server before taking a snapshot of \(dataDirectory)") }
        let copy = directory + "/snapshot-" + UUID().uuidString
        try Self.copyPreservingOwners(dataDirectory, to: copy)
        return copy
    }

    /// Puts a ``snapshot()`` back in place of the stopped server's data directory: the server,
    /// started again, has gone back in time to that moment (as after a restore from a backup,
    /// or a failover to a replica that lagged behind). The snapshot stays, for another restore.
    /// - Throws: ``PostgresServerError`` when the server is running or the copy fails.
    public func restore(_ snapshot: String) throws {
        guard !isRunning else { throw PostgresServerError("stop the server before restoring \(dataDirectory)") }
        do {
            try FileManager.default.removeItem(atPath: dataDirectory)
        } catch {
            throw PostgresServerError("cannot remove \(dataDirectory) to restore it: \(error)")
        }
        try Self.copyPreservingOwners(snapshot, to: dataDirectory)
    }

    /// `cp -a`: FileManager's copy would make the files the test's (root's), which the
    /// server's own account could then not read. It blocks until cp exits: async code calls
    /// the `async` overloads of ``snapshot()`` and ``restore(_:)``, which run it off the pool.
    private static func copyPreservingOwners(_ source: String, to destination: String) throws {
        let copy: ChildProcess
        do {
            copy = try ChildProcess("/bin/cp", ["-a", source, destination])
        } catch {
            throw PostgresServerError("cannot run cp: \(error)")
        }
        guard let outcome = copy.waitBlocking(timeout: .seconds(300)), outcome.succeeded else {
            throw PostgresServerError("cp -a \(source) \(destination) failed or did not finish: \(copy.commandLine)")
        }
    }
}
