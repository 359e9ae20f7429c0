// A throwaway PostgreSQL server for the fleet tests and benchmarks: its own data directory in
// a temporary directory, its own loopback port, stopped and deleted when it is removed.
import ChildProcesses
import Foundation
import Synchronization

/// A PostgreSQL server of its own, in a fresh temporary directory, listening on a free port of
/// 127.0.0.1: for tests and benchmarks, never for data that matters.
///
/// ```swift
/// let server = try await PostgresServer.start()
/// defer { server.remove() }
/// try server.createUser("fleet", password: "secret")
/// try server.createDatabase("prefs", owner: "fleet")
/// let url = server.url(user: "fleet", password: "secret", database: "prefs")
/// // postgres://fleet:secret@127.0.0.1:PORT/prefs
/// ```
///
/// The superuser `postgres` connects over loopback without a password (trust); every other
/// user must give its password (`scram-sha-256`), so a wrong password fails with "password
/// authentication failed". The server runs with `fsync=off` and `max_connections=200` unless
/// started with another limit (three of them are kept for the superuser, as PostgreSQL does).
///
/// Needs the PostgreSQL server programs: `initdb` on `$PATH`, or Debian's `postgresql`
/// package (`/usr/lib/postgresql/<version>/bin`, the newest is taken). As root the server
/// runs as the `postgres` system user (else `nobody`), through `runuser`.
///
/// **Cleanup.** ``remove()`` stops the server and deletes its directory; `deinit` calls it,
/// so dropping the last reference is enough. If this process ends first — a crash, `kill -9`,
/// Ctrl-C, or a server kept in a `static let` — a small watchdog process (`sh`, started with the
/// server) notices its end and does the same: fast shutdown, then the directory is deleted.
///
/// Starting takes about a second (mostly `initdb`); several servers may be started at once,
/// from several suites: each has its own directory and port.
public final class PostgresServer: Sendable {
    /// The address the server listens on (only this one: no IPv6, no other interface).
    public let host = "127.0.0.1"
    /// The TCP port, the same for the server's whole life, across ``stopServer()`` and
    /// ``startServer()``.
    public let port: Int
    /// The temporary directory holding everything: `data/` (the cluster), `server.log`, and
    /// the Unix socket (`.s.PGSQL.<port>`).
    public let directory: String
    /// The cluster's data directory (`PGDATA`), inside ``directory``.
    public let dataDirectory: String
    /// The server's log file, inside ``directory``.
    public let logFile: String
    /// PostgreSQL's `max_connections`; `superuser_reserved_connections` keeps 3 of them for
    /// `postgres`, so other roles get this many less 3.
    public let maxConnections: Int
    /// The extra server settings it was started with (`-c name=value`), given again at every
    /// ``startServer()``.
    public let settings: [String: String]

    private let installation: PostgresInstallation
    private let watchdog: ServerWatchdog?
    /// Serializes starts, stops and removal; held while pg_ctl runs (never while other code runs).
    private let lifecycle = Mutex(Lifecycle.running)

    private enum Lifecycle {
        case running, stopped, removed
    }

    private init(
        installation: PostgresInstallation, directory: String, port: Int, maxConnections: Int, settings: [String: String],
        watchdog: ServerWatchdog?
    ) {
        self.installation = installation
        self.maxConnections = maxConnections
        self.settings = settings
        self.directory = directory
        self.dataDirectory = directory + "/data"
        self.logFile = directory + "/server.log"
        self.port = port
        self.watchdog = watchdog
    }

    deinit {
        remove()
    }

    // MARK: - Starting

    /// Creates a cluster in a fresh temporary directory and starts a server on a free
    /// loopback port; blocks the calling thread for about a second.
    ///
    /// ```swift
    /// let server = try PostgresServer.start(label: "bench")
    /// ```
    ///
    /// In an `async` function the compiler picks the `async` overload (`try await
    /// PostgresServer.start()`), which does the same on a thread of its own instead of a
    /// thread of the cooperative pool.
    /// - Parameter label: part of the directory's name (`pg-<label>-XXXXXX`), to tell servers apart.
    /// - Throws: ``PostgresServerError`` when PostgreSQL is not installed or initdb or the
    ///   server fails (with the command, its output and the end of the server's log). When
    ///   another process takes the chosen port before the server binds it, one more port is
    ///   tried before giving up.
    ///   - tls: serve TLS too (`ssl = on`, a self-signed certificate for 127.0.0.1 made by
    ///     `openssl` in the data directory), for clients that ask for `sslmode=require`.
    ///   - maxConnections: PostgreSQL's `max_connections` (at least 4: 3 are the superuser's);
    ///     a small one leaves clients without a slot ("remaining connection slots are reserved…").
    ///   - settings: more server settings, each passed to the postmaster as `-c name=value`
    ///     (here and at every ``startServer()``), after the fixed ones, so they win: for
    ///     instance `["wal_level": "logical", "max_replication_slots": "10"]`. Leave `port`,
    ///     `listen_addresses` and `unix_socket_directories` alone. A name must be letters,
    ///     digits, `_` and `.`; a value must not hold NUL or line breaks (else this throws
    ///     before anything is created); a setting PostgreSQL rejects makes the start fail,
    ///     the log tail saying why.
    public static func start(
        label: String = "fleet", tls: Bool = false, maxConnections: Int = 200, settings: [String: String] = [:]
    ) throws -> PostgresServer {
        let options = try commandLineSettings(settings)
        let installation = try PostgresInstallation.locate()
        let directory = try makeDirectory(label: label, installation: installation)
        // First, so that even a crash during initdb leaves nothing behind.
        let watchdog = try? ServerWatchdog(directory: directory)
        do {
            try initializeCluster(in: directory, installation: installation, tls: tls)
            var port = try LoopbackPort.free()
            do {
                try startPostmaster(in: directory, port: port, maxConnections: maxConnections, settings: options,
                                    installation: installation)
            } catch let error as PostgresServerError where error.portInUse {
                port = try LoopbackPort.free()
                try startPostmaster(in: directory, port: port, maxConnections: maxConnections, settings: options,
                                    installation: installation)
            }
            return PostgresServer(installation: installation, directory: directory, port: port, maxConnections: maxConnections,
                                  settings: settings, watchdog: watchdog)
        } catch {
            shutDownBySignal(dataDirectory: directory + "/data")
            try? FileManager.default.removeItem(atPath: directory)
            watchdog?.release()
            throw error
        }
    }

    /// ``start(label:tls:maxConnections:settings:)`` on a thread of its own: the second of
    /// initdb does not hold a thread of the cooperative pool.
    ///
    /// ```swift
    /// let server = try await PostgresServer.start()
    /// let logical = try await PostgresServer.start(settings: ["wal_level": "logical"])
    /// ```
    /// - Throws: what ``start(label:tls:maxConnections:settings:)`` throws.
    public static func start(
        label: String = "fleet", tls: Bool = false, maxConnections: Int = 200, settings: [String: String] = [:]
    ) async throws -> PostgresServer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try start(label: label, tls: tls, maxConnections: maxConnections, settings: settings) as PostgresServer
                })
            }.start()
        }
    }

    // MARK: - Stopping and starting again

    /// Whether the server is running (as far as this object started and stopped it).
    public var isRunning: Bool {
        lifecycle.withLock { $0 == .running }
    }

    /// Stops the server (`pg_ctl stop -m fast -w`: open connections are closed, then it waits
    /// until the server has exited). Does nothing when it is already stopped. The directory
    /// stays; ``startServer()`` starts it again on the same port.
    ///
    /// ```swift
    /// try server.stopServer()   // clients now see connection refused
    /// try server.startServer()  // same port, same data
    /// ```
    /// - Throws: ``PostgresServerError`` when pg_ctl fails and the server is still running, or
    ///   after ``remove()``.
    public func stopServer() throws {
        try lifecycle.withLock { state in
            switch state {
            case .stopped: return
            case .removed: throw PostgresServerError("the server in \(directory) was removed")
            case .running:
                try pgCtlStop()
                state = .stopped
            }
        }
    }

    /// Starts the stopped server again, on the same port and data directory. Does nothing when
    /// it is running.
    /// - Throws: ``PostgresServerError`` when the server does not start (for instance when
    ///   another process took the port meanwhile: the log tail says "Address already in use"),
    ///   or after ``remove()``.
    public func startServer() throws {
        try lifecycle.withLock { state in
            switch state {
            case .running: return
            case .removed: throw PostgresServerError("the server in \(directory) was removed")
            case .stopped:
                try Self.startPostmaster(in: directory, port: port, maxConnections: maxConnections,
                                         settings: try Self.commandLineSettings(settings), installation: installation)
                state = .running
            }
        }
    }

    /// Same as ``stopServer()``.
    /// - Throws: what ``stopServer()`` throws.
    public func stop() throws {
        try stopServer()
    }

    /// Stops the server and starts it again on the same port: every connection is dropped.
    ///
    /// ```swift
    /// try server.restart()
    /// ```
    /// - Throws: what ``stopServer()`` and ``startServer()`` throw.
    public func restart() throws {
        try stopServer()
        try startServer()
    }

    /// Stops the server and deletes its directory; afterwards ``startServer()``,
    /// ``stopServer()`` and ``psql(_:database:)`` throw. Safe to call more than once; `deinit`
    /// calls it.
    ///
    /// ```swift
    /// let server = try await PostgresServer.start()
    /// defer { server.remove() }
    /// ```
    ///
    /// Never throws: if `pg_ctl stop` fails, the postmaster is sent SIGINT (and then SIGQUIT)
    /// directly; a directory that cannot be deleted is left behind.
    public func remove() {
        lifecycle.withLock { state in
            if state == .removed { return }
            if state == .running {
                do { try pgCtlStop() } catch { Self.shutDownBySignal(dataDirectory: dataDirectory) }
            }
            try? FileManager.default.removeItem(atPath: directory)
            watchdog?.release()
            state = .removed
        }
    }

    // MARK: - Users, databases, SQL

    /// Creates a login role with a password (checked with `scram-sha-256` over TCP).
    ///
    /// ```swift
    /// try server.createUser("fleet", password: "secret")
    /// ```
    /// - Throws: ``PostgresServerError`` with psql's message, e.g. when the role exists.
    public func createUser(_ name: String, password: String) throws {
        _ = try psql("CREATE ROLE \(try Self.identifier(name)) LOGIN PASSWORD \(try Self.literal(password))")
    }

    /// Creates a database, owned by `owner` (a role) when given, else by `postgres`.
    ///
    /// ```swift
    /// try server.createDatabase("prefs", owner: "fleet")
    /// ```
    /// - Throws: ``PostgresServerError`` with psql's message, e.g. when the database exists.
    public func createDatabase(_ name: String, owner: String? = nil) throws {
        var sql = "CREATE DATABASE \(try Self.identifier(name))"
        if let owner { sql += " OWNER \(try Self.identifier(owner))" }
        _ = try psql(sql)
    }

    /// Runs `sql` as the superuser `postgres` with psql (`-At`, `ON_ERROR_STOP=1`) and returns
    /// what it printed: one row per line, columns separated by `|`, no header (the final
    /// newline removed). Several statements separated by `;` run in one transaction.
    ///
    /// ```swift
    /// let count = try server.psql("SELECT count(*) FROM prefs", database: "prefs")  // "3"
    /// ```
    /// - Throws: ``PostgresServerError`` carrying psql's standard error (e.g. `ERROR:  relation
    ///   "prefs" does not exist`) when psql exits with a non-zero status.
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        guard lifecycle.withLock({ $0 != .removed }) else {
            throw PostgresServerError("the server in \(directory) was removed")
        }
        guard !sql.contains("\0"), !database.contains("\0") else {
            throw PostgresServerError("SQL and database names cannot contain NUL characters")
        }
        // The database by PGDATABASE, not -d: a -d value with "=" would be read as a connection string.
        let arguments = ["-X", "-h", host, "-p", String(port), "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-At", "-c", sql]
        let environment = ["PGDATABASE": database, "PGCONNECT_TIMEOUT": "10", "PGCLIENTENCODING": "UTF8"]
        let result = try installation.run(
            installation.psql, arguments, asServerAccount: false, in: directory, environment: environment,
            timeout: .seconds(120)
        )
        guard result.status == 0 else {
            throw PostgresServerError(
                "psql failed",
                command: PostgresInstallation.commandLine(installation.psql, arguments, environment: environment),
                status: result.status,
                output: result.diagnostics
            )
        }
        var output = result.standardOutput
        while output.hasSuffix("\n") { output.removeLast() }
        return output
    }

    /// A connection URL for this server: `postgres://user[:password]@127.0.0.1:PORT/database`,
    /// with the user, password and database percent-encoded.
    ///
    /// ```swift
    /// server.url()                                       // postgres://postgres@127.0.0.1:PORT/postgres
    /// server.url(user: "fleet", password: "p@ss word")  // postgres://fleet:p%40ss%20word@127.0.0.1:PORT/postgres
    /// ```
    public func url(user: String = "postgres", password: String? = nil, database: String = "postgres") -> String {
        var credentials = Self.percentEncoded(user)
        if let password { credentials += ":" + Self.percentEncoded(password) }
        return "postgres://\(credentials)@\(host):\(port)/\(Self.percentEncoded(database))"
    }

    /// The end of the server's log (at most `maxBytes` bytes), for failure messages.
    public func logTail(maxBytes: Int = 4_000) -> String {
        Self.tail(of: logFile, maxBytes: maxBytes)
    }

    // MARK: - Helpers

    /// `pg_ctl stop -m fast -w`; a server that is not running (no pid file) counts as stopped.
    private func pgCtlStop() throws {
        let arguments = ["stop", "-D", dataDirectory, "-m", "fast", "-w", "-t", "60"]
        let result = try installation.run(
            installation.pgCtl, arguments, asServerAccount: true, in: directory, timeout: .seconds(90)
        )
        let pidFile = dataDirectory + "/postmaster.pid"
        guard result.status == 0 || !FileManager.default.fileExists(atPath: pidFile) else {
            throw PostgresServerError(
                "pg_ctl stop failed",
                command: PostgresInstallation.commandLine(installation.pgCtl, arguments),
                status: result.status,
                output: result.diagnostics,
                logTail: logTail()
            )
        }
    }
}
