// A throwaway PgBouncer in front of a throwaway PostgreSQL server: the "relayed" topology,
// where clients reach the server through a connection pooler, as many deployments do.
import ChildProcesses
import Foundation
import Synchronization

/// A PgBouncer of its own, in a fresh temporary directory, listening on a free port of
/// 127.0.0.1, pooling connections to one database of one ``PostgresServer``: for tests, never
/// for data that matters.
///
/// ```swift
/// let server = try await PostgresServer.start()
/// defer { server.remove() }
/// try server.createUser("fleet", password: "secret")
/// try server.createDatabase("prefs", owner: "fleet")
/// let bouncer = try await PgBouncer.start(inFrontOf: server, database: "prefs", user: "fleet", password: "secret")
/// defer { bouncer.remove() }
/// let url = bouncer.url()  // postgres://fleet:secret@127.0.0.1:BOUNCER_PORT/prefs
/// ```
///
/// It serves one database, under the server's name for it, and logs in to the server as one
/// user, the only user clients may give. With a password, clients must give it too
/// (`scram-sha-256`, checked by PgBouncer against `userlist.txt`) and PgBouncer gives it to the
/// server; without one, PgBouncer trusts every client, and the server must trust the user
/// (only `postgres` in a ``PostgresServer``). The pool mode is `transaction` unless told
/// otherwise: a server connection is a client's for one transaction only, so session state
/// (`LISTEN`, session settings, prepared statements by name) does not carry from one
/// transaction to the next.
///
/// Needs PgBouncer at `/usr/sbin/pgbouncer` (Debian's `pgbouncer` package) or on `$PATH`. As
/// root it runs as the server's account (`postgres`, else `nobody`), through `runuser`.
///
/// **Cleanup.** ``remove()`` stops PgBouncer and deletes its directory; `deinit` calls it. If
/// this process ends first, a watchdog process (as a ``PostgresServer``'s) sends PgBouncer
/// SIGTERM, then SIGKILL, and deletes the directory.
public final class PgBouncer: Sendable {
    /// The address PgBouncer listens on (only this one).
    public let host = "127.0.0.1"
    /// The TCP port clients connect to.
    public let port: Int
    /// The database clients ask for: the server's database of that name.
    public let database: String
    /// The one user clients connect as, and PgBouncer logs in to the server as.
    public let user: String
    /// The user's password, or nil when PgBouncer trusts its clients.
    public let password: String?
    /// The temporary directory holding `pgbouncer.ini`, `userlist.txt`, `pgbouncer.log`,
    /// `pgbouncer.pid` and the Unix socket.
    public let directory: String
    /// PgBouncer's log file, inside ``directory``.
    public let logFile: String

    private let pidFile: String
    private let watchdog: ServerWatchdog?
    /// Serializes stopping and removal; held while waiting for PgBouncer to exit.
    private let lifecycle = Mutex(Lifecycle.running)

    private enum Lifecycle {
        case running, stopped, removed
    }

    private init(
        port: Int, database: String, user: String, password: String?, directory: String, watchdog: ServerWatchdog?
    ) {
        self.port = port
        self.database = database
        self.user = user
        self.password = password
        self.directory = directory
        self.logFile = directory + "/pgbouncer.log"
        self.pidFile = directory + "/pgbouncer.pid"
        self.watchdog = watchdog
    }

    deinit {
        remove()
    }

    // MARK: - Starting

    /// Writes a configuration in a fresh temporary directory and starts PgBouncer (`-d`, as a
    /// daemon) on a free loopback port in front of `server`'s database `database`; blocks the
    /// calling thread until PgBouncer accepts TCP connections (a fraction of a second; at most
    /// 30 s).
    ///
    /// ```swift
    /// let bouncer = try PgBouncer.start(inFrontOf: server, database: "prefs", user: "fleet", password: "secret")
    /// ```
    ///
    /// In an `async` function the compiler picks the `async` overload, which does the same on
    /// a thread of its own.
    /// - Parameters:
    ///   - server: the PostgreSQL server PgBouncer connects to, over TCP on 127.0.0.1 (it need
    ///     not be running yet: PgBouncer connects when a client needs a server connection).
    ///   - database: the database, on the server and towards clients.
    ///   - user: the one user clients connect as, and PgBouncer logs in to the server as.
    ///   - password: the user's password on the server, which clients must give too; nil for a
    ///     user the server trusts (PgBouncer then trusts every client).
    ///   - poolMode: `session`, `transaction` or `statement`.
    ///   - defaultPoolSize: server connections per database and user.
    ///   - maxClientConnections: client connections PgBouncer accepts (`max_client_conn`); its
    ///     limit of open files is raised to match, up to the hard limit.
    ///   - label: part of the directory's name (`pgb-<label>-XXXXXX`), to tell bouncers apart.
    /// - Throws: ``PostgresServerError`` when PgBouncer is not installed, a name or password
    ///   cannot be written in its configuration (quotes, backslashes, spaces in names, line
    ///   breaks, NUL), the counts are not positive, or PgBouncer exits or does not accept
    ///   connections within 30 s (with the end of its log). When another process takes the
    ///   chosen port first, one more port is tried.
    public static func start(
        inFrontOf server: PostgresServer, database: String, user: String, password: String?, poolMode: String = "transaction",
        defaultPoolSize: Int = 20, maxClientConnections: Int = 2000, label: String = "bouncer"
    ) throws -> PgBouncer {
        try checkConfigurationText(database: database, user: user, password: password, poolMode: poolMode)
        guard defaultPoolSize > 0, maxClientConnections > 0 else {
            throw PostgresServerError(
                "PgBouncer needs a positive pool size and client limit, not \(defaultPoolSize) and \(maxClientConnections)"
            )
        }
        guard let executable = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].first(where: FileManager.default.isExecutableFile)
            ?? ChildProcess.findOnPath("pgbouncer")
        else {
            throw PostgresServerError("PgBouncer is not installed (looked in /usr/sbin and on $PATH); on Debian: apt-get install pgbouncer")
        }
        let installation = try PostgresInstallation.locate()
        let directory = try PostgresServer.makeDirectory(prefix: "pgb", label: label, installation: installation)
        // First, so that even a crash while PgBouncer starts leaves nothing behind.
        let watchdog = try? ServerWatchdog(directory: directory, pidFile: "pgbouncer.pid", firstSignal: "TERM", secondSignal: "KILL")
        do {
            let configuration = Configuration(
                directory: directory, serverPort: server.port, database: database, user: user, password: password,
                poolMode: poolMode, defaultPoolSize: defaultPoolSize, maxClientConnections: maxClientConnections
            )
            var port = try LoopbackPort.free()
            do {
                try launch(executable, configuration, port: port, installation: installation)
            } catch let error as PostgresServerError where error.portInUse {
                port = try LoopbackPort.free()
                try launch(executable, configuration, port: port, installation: installation)
            }
            return PgBouncer(port: port, database: database, user: user, password: password, directory: directory, watchdog: watchdog)
        } catch {
            terminate(pidFile: directory + "/pgbouncer.pid")
            try? FileManager.default.removeItem(atPath: directory)
            watchdog?.release()
            throw error
        }
    }

    /// ``start(inFrontOf:database:user:password:poolMode:defaultPoolSize:maxClientConnections:label:)``
    /// on a thread of its own: the wait for PgBouncer does not hold a thread of the cooperative pool.
    ///
    /// ```swift
    /// let bouncer = try await PgBouncer.start(inFrontOf: server, database: "prefs", user: "fleet", password: "secret")
    /// ```
    /// - Throws: what the synchronous overload throws.
    public static func start(
        inFrontOf server: PostgresServer, database: String, user: String, password: String?, poolMode: String = "transaction",
        defaultPoolSize: Int = 20, maxClientConnections: Int = 2000, label: String = "bouncer"
    ) async throws -> PgBouncer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try start(inFrontOf: server, database: database, user: user, password: password, poolMode: poolMode,
                              defaultPoolSize: defaultPoolSize, maxClientConnections: maxClientConnections, label: label) as PgBouncer
                })
            }.start()
        }
    }

    // MARK: - Stopping

    /// Whether PgBouncer is running (as far as this object started and stopped it).
    public var isRunning: Bool {
        lifecycle.withLock { $0 == .running }
    }

    /// Stops PgBouncer: SIGTERM (its immediate shutdown: every client connection is closed),
    /// then SIGKILL if it is still there after 10 s; returns once the process is gone (at most
    /// about 15 s). Does nothing when it is already stopped. The directory, its log included,
    /// stays until ``remove()``. Never throws: SIGKILL cannot be refused.
    public func stop() {
        lifecycle.withLock { state in
            guard state == .running else { return }
            Self.terminate(pidFile: pidFile)
            state = .stopped
        }
    }

    /// Stops PgBouncer and deletes its directory. Safe to call more than once; `deinit` calls
    /// it. Never throws: a directory that cannot be deleted is left behind.
    ///
    /// ```swift
    /// let bouncer = try await PgBouncer.start(inFrontOf: server, database: "prefs", user: "fleet", password: "secret")
    /// defer { bouncer.remove() }
    /// ```
    public func remove() {
        lifecycle.withLock { state in
            if state == .removed { return }
            if state == .running { Self.terminate(pidFile: pidFile) }
            try? FileManager.default.removeItem(atPath: directory)
            watchdog?.release()
            state = .removed
        }
    }

    // MARK: - Connecting

    /// A connection URL through PgBouncer: `postgres://user[:password]@127.0.0.1:PORT/database`,
    /// percent-encoded, by default with the configured database, user and password (another
    /// database or user is refused by PgBouncer, which is what a test may want).
    ///
    /// ```swift
    /// bouncer.url()                        // postgres://fleet:secret@127.0.0.1:PORT/prefs
    /// bouncer.url(password: "wrong")       // the same, with a password PgBouncer refuses
    /// ```
    public func url(database: String? = nil, user: String? = nil, password: String? = nil) -> String {
        let user = user ?? self.user
        var credentials = PostgresServer.percentEncoded(user)
        if let password = password ?? self.password { credentials += ":" + PostgresServer.percentEncoded(password) }
        return "postgres://\(credentials)@\(host):\(port)/\(PostgresServer.percentEncoded(database ?? self.database))"
    }

    /// The end of PgBouncer's log (at most `maxBytes` bytes): logins, server connections,
    /// refusals ("no such user", "unsupported startup parameter"…), for failure messages.
    public func logTail(maxBytes: Int = 4_000) -> String {
        PostgresServer.tail(of: logFile, maxBytes: maxBytes)
    }

    // MARK: - Helpers

    /// What `pgbouncer.ini` says, but the port.
    struct Configuration {
        let directory: String
        let serverPort: Int
        let database: String
        let user: String
        let password: String?
        let poolMode: String
        let defaultPoolSize: Int
        let maxClientConnections: Int

        /// Open files PgBouncer needs: one a client, one a server connection (the pool, plus
        /// the reserve pool it may add), and some of its own (log, listening sockets, DNS).
        var openFiles: Int { maxClientConnections + defaultPoolSize * 2 + 64 }

        func ini(port: Int) -> String {
            var serverOptions = "host=127.0.0.1 port=\(serverPort) dbname=\(database) user=\(user)"
            // Single-quoted: checkConfigurationText let no quote or backslash in.
            if let password { serverOptions += " password='\(password)'" }
            return """
                ; Written by PostgresTestSupport: one database, one user, loopback only.
                [databases]
                \(database) = \(serverOptions)

                [pgbouncer]
                listen_addr = 127.0.0.1
                listen_port = \(port)
                unix_socket_dir = \(directory)
                auth_type = \(password == nil ? "trust" : "scram-sha-256")
                auth_file = \(directory)/userlist.txt
                pool_mode = \(poolMode)
                default_pool_size = \(defaultPoolSize)
                max_client_conn = \(maxClientConnections)
                ; Clients (psql, JDBC, postgres-nio with application_name) send these; PgBouncer
                ; refuses a connection whose startup packet holds a parameter it does not know.
                ignore_startup_parameters = extra_float_digits,options,application_name
                ; After the server restarts, try logging in again after 1 s, not the default 15 s.
                server_login_retry = 1
                logfile = \(directory)/pgbouncer.log
                pidfile = \(directory)/pgbouncer.pid

                """
        }

        /// `"user" "password"`: with trust, the user must still be listed (an empty password).
        var userList: String {
            "\"\(user)\" \"\(password ?? "")\"\n"
        }
    }

    /// Rejects what would not survive being written into `pgbouncer.ini` (a connection string
    /// in an ini file) and `userlist.txt`, rather than quoting for both formats.
    private static func checkConfigurationText(database: String, user: String, password: String?, poolMode: String) throws {
        func plain(_ text: String) -> Bool {
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }
        }
        guard plain(database), plain(user) else {
            throw PostgresServerError(
                "PgBouncer's database and user must be letters, digits, _, - and . (not \(database.debugDescription), \(user.debugDescription))"
            )
        }
        if let password, password.contains(where: { "'\"\\".contains($0) || $0 == "\0" || $0.isNewline || $0.isWhitespace }) {
            throw PostgresServerError("a PgBouncer password cannot hold quotes, backslashes, white space or NUL")
        }
        guard ["session", "transaction", "statement"].contains(poolMode) else {
            throw PostgresServerError("not a PgBouncer pool mode: \(poolMode.debugDescription) (session, transaction, statement)")
        }
    }
}
