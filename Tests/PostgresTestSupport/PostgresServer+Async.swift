import Foundation

/// The server's blocking operations as `async` overloads, which the compiler picks in an `async`
/// function (`try await server.psql(…)`): each runs the synchronous one on a thread of its own
/// and suspends meanwhile.
///
/// psql's round trip, pg_ctl's wait for the postmaster and the wait for a stopped server block
/// their thread for up to seconds. On a thread of the cooperative pool (as many threads as
/// cores: two in CI) that starved everything else the test process runs concurrently, the
/// fleet's in-process syncs and the console's event streams included; three suites once had to
/// run alone for it (the test bodies themselves now run off the pool too: Tests/TestScheduling).
extension PostgresServer {
    /// ``psql(_:database:)`` on a thread of its own.
    /// - Throws: what ``psql(_:database:)`` throws.
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        try await runOffPool { try self.psql(sql, database: database) as String }
    }

    /// ``createUser(_:password:)`` on a thread of its own.
    /// - Throws: what ``createUser(_:password:)`` throws.
    public func createUser(_ name: String, password: String) async throws {
        try await runOffPool { try self.createUser(name, password: password) as Void }
    }

    /// ``createDatabase(_:owner:)`` on a thread of its own.
    /// - Throws: what ``createDatabase(_:owner:)`` throws.
    public func createDatabase(_ name: String, owner: String? = nil) async throws {
        try await runOffPool { try self.createDatabase(name, owner: owner) as Void }
    }

    /// ``stopServer()`` on a thread of its own.
    /// - Throws: what ``stopServer()`` throws.
    public func stopServer() async throws {
        try await runOffPool { try self.stopServer() as Void }
    }

    /// ``startServer()`` on a thread of its own.
    /// - Throws: what ``startServer()`` throws.
    public func startServer() async throws {
        try await runOffPool { try self.startServer() as Void }
    }

    /// ``stop()`` on a thread of its own.
    /// - Throws: what ``stop()`` throws.
    public func stop() async throws {
        try await runOffPool { try self.stop() as Void }
    }

    /// ``restart()`` on a thread of its own.
    /// - Throws: what ``restart()`` throws.
    public func restart() async throws {
        try await runOffPool { try self.restart() as Void }
    }

    /// ``remove()`` on a thread of its own (`pg_ctl stop` waits for the server to exit).
    public func remove() async {
        try? await runOffPool { self.remove() as Void }
    }

    /// ``snapshot()`` on a thread of its own (`cp -a` of the data directory).
    /// - Throws: what ``snapshot()`` throws.
    public func snapshot() async throws -> String {
        try await runOffPool { try self.snapshot() as String }
    }

    /// ``restore(_:)`` on a thread of its own.
    /// - Throws: what ``restore(_:)`` throws.
    public func restore(_ snapshot: String) async throws {
        try await runOffPool { try self.restore(snapshot) as Void }
    }
}

extension PgBouncer {
    /// ``stop()`` on a thread of its own (it waits up to 15 s for the daemon to go).
    public func stop() async {
        try? await runOffPool { self.stop() as Void }
    }

    /// ``remove()`` on a thread of its own (it stops PgBouncer first, as ``stop()`` does).
    public func remove() async {
        try? await runOffPool { self.remove() as Void }
    }
}

/// Runs `body` on a new thread and suspends until it returns: blocking work (a child process
/// waited for, a poll with `usleep`) off the cooperative pool.
/// - Throws: what `body` throws.
func runOffPool<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}
