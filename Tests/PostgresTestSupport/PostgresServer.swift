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

    /// A fresh directory `<prefix>-<label>-XXXXXX`, owned by the server's account. Under the
    /// system's temporary directory when that path is short and plain enough (the socket path
    /// must fit in 107 bytes, and pg_ctl passes it through a shell), else under /tmp. PgBouncer
    /// makes its directory here too, for the same reasons.
    static func makeDirectory(prefix: String = "pg", label: String, installation: PostgresInstallation) throws -> String {
        var base = FileManager.default.temporaryDirectory.path
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        let plainLabel = String(
            label.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }.prefix(16)
        )
        let name = prefix + "-" + (plainLabel.isEmpty ? "server" : plainLabel) + "-XXXXXX"
        let plain = base.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-".contains($0)) }
        let fits = (base + "/" + name + "/.s.PGSQL.65535").utf8.count <= 107
        let reachable = installation.account == nil || searchableByOthers(base)
        if !(plain && fits && reachable) { base = "/tmp" }

        var template = Array((base + "/" + name).utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap(mkdtemp).map { String(cString: $0) }
        }
        guard let directory = created else {
            throw PostgresServerError("cannot create a directory \(base)/\(name): \(String(cString: strerror(errno)))")
        }
        do {
            try installation.handOver(directory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        return directory
    }

    /// Whether every directory on `path` lets other users through (the server's account must
    /// reach its directory).
    private static func searchableByOthers(_ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            guard stat(prefix, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
        }
        return true
    }

    /// `initdb` (trust, user postgres, UTF8, locale C, no fsync), then pg_hba.conf: trust for
    /// `postgres`, `scram-sha-256` for every other user.
    private static func initializeCluster(in directory: String, installation: PostgresInstallation, tls: Bool) throws {
        let dataDirectory = directory + "/data"
        let arguments = [
            "-D", dataDirectory, "--auth=trust", "-U", "postgres", "--no-sync", "--encoding=UTF8", "--locale=C",
        ]
        let result = try installation.run(
            installation.initdb, arguments, asServerAccount: true, in: directory, timeout: .seconds(180)
        )
        guard result.status == 0 else {
            throw PostgresServerError(
                "initdb failed",
                command: PostgresInstallation.commandLine(installation.initdb, arguments),
                status: result.status,
                output: result.diagnostics
            )
        }
        let hba = """
            # Written by PostgresTestSupport: the superuser without a password, everyone else with one.
            local all postgres                  trust
            host  all postgres     127.0.0.1/32 trust
            local all all                       scram-sha-256
            host  all all          127.0.0.1/32 scram-sha-256

            """
        let settings = """

            # Written by PostgresTestSupport.
            password_encryption = 'scram-sha-256'

            """
        var tlsSettings = ""
        if tls {
            try makeCertificate(in: dataDirectory, directory: directory, installation: installation)
            tlsSettings = "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n"
        }
        do {
            // In place (not atomically): the files keep their owner, the server's account.
            try hba.write(toFile: dataDirectory + "/pg_hba.conf", atomically: false, encoding: .utf8)
            let configuration = try FileHandle(forWritingTo: URL(fileURLWithPath: dataDirectory + "/postgresql.conf"))
            defer { try? configuration.close() }
            try configuration.seekToEnd()
            try configuration.write(contentsOf: Data((settings + tlsSettings).utf8))
        } catch {
            throw PostgresServerError("cannot write pg_hba.conf or postgresql.conf in \(dataDirectory): \(error)")
        }
    }

    /// A self-signed certificate and its key (mode 0600, as PostgreSQL demands) for 127.0.0.1,
    /// made by the server's account so the server can read them.
    private static func makeCertificate(in dataDirectory: String, directory: String, installation: PostgresInstallation) throws {
        guard let openssl = ChildProcess.findOnPath("openssl") else {
            throw PostgresServerError("a TLS server needs the openssl command (apt-get install openssl)")
        }
        let arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
            "-keyout", dataDirectory + "/server.key", "-out", dataDirectory + "/server.crt",
        ]
        let result = try installation.run(openssl, arguments, asServerAccount: true, in: directory, timeout: .seconds(60))
        guard result.status == 0 else {
            throw PostgresServerError("openssl could not make a certificate", command: PostgresInstallation.commandLine(openssl, arguments),
                                      status: result.status, output: result.diagnostics)
        }
        guard chmod(dataDirectory + "/server.key", 0o600) == 0 else {
            throw PostgresServerError("cannot make \(dataDirectory)/server.key private: \(String(cString: strerror(errno)))")
        }
    }

    /// `settings` as postmaster options, `-c 'name=value'` each, sorted by name: shell-quoted,
    /// for pg_ctl hands its `-o` string to a shell.
    /// - Throws: ``PostgresServerError`` for a name that is not a plain setting name, or a
    ///   value with NUL or a line break (which no quoting carries through pg_ctl).
    private static func commandLineSettings(_ settings: [String: String]) throws -> String {
        try settings.sorted { $0.key < $1.key }.map { name, value in
            let plainName = !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }
            guard plainName else { throw PostgresServerError("not a server setting's name: \(name.debugDescription)") }
            guard !value.contains(where: { $0 == "\0" || $0.isNewline }) else {
                throw PostgresServerError("the value of the server setting \(name) holds NUL or a line break: \(value.debugDescription)")
            }
            return " -c " + PostgresInstallation.shellQuoted("\(name)=\(value)")
        }.joined()
    }

    /// `pg_ctl start -w` on `port`, with the socket in `directory`, logging to `server.log`;
    /// `settings` (from ``commandLineSettings(_:)``) come last, so they override the fixed ones.
    private static func startPostmaster(
        in directory: String, port: Int, maxConnections: Int, settings: String, installation: PostgresInstallation
    ) throws {
        let dataDirectory = directory + "/data"
        let logFile = directory + "/server.log"
        let logStart = (try? FileManager.default.attributesOfItem(atPath: logFile)[.size] as? Int) ?? 0
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=\(maxConnections)"
            + settings
        let arguments = ["start", "-w", "-t", "60", "-D", dataDirectory, "-l", logFile, "-o", options]
        let result = try installation.run(
            installation.pgCtl, arguments, asServerAccount: true, in: directory, timeout: .seconds(90)
        )
        guard result.status == 0 else {
            // pg_ctl gave up waiting, or the postmaster exited: make sure it is not running.
            shutDownBySignal(dataDirectory: dataDirectory)
            throw PostgresServerError(
                "pg_ctl start failed",
                command: PostgresInstallation.commandLine(installation.pgCtl, arguments),
                status: result.status,
                output: result.diagnostics,
                logTail: tail(of: logFile, maxBytes: 4_000, from: logStart)
            )
        }
    }

    /// Stops a postmaster without pg_ctl: SIGINT (fast shutdown), then, when its pid file is
    /// still there after 10 s, SIGQUIT (immediate shutdown). Waits for the pid file to go,
    /// which the postmaster removes last (what `pg_ctl stop -w` waits for too).
    static func shutDownBySignal(dataDirectory: String) {
        let pidFile = dataDirectory + "/postmaster.pid"
        for (signal, seconds) in [(SIGINT, 10), (SIGQUIT, 5)] {
            guard let contents = try? String(contentsOfFile: pidFile, encoding: .utf8),
                  let line = contents.split(separator: "\n").first,
                  let pid = pid_t(line.trimmingCharacters(in: .whitespaces)), pid > 0
            else { return }
            kill(pid, signal)
            let deadline = ContinuousClock.now + .seconds(seconds)
            while FileManager.default.fileExists(atPath: pidFile), ContinuousClock.now < deadline {
                usleep(10_000)
            }
        }
    }

    /// The end of the file at `path` (at most `maxBytes` bytes, none before `start`); empty
    /// when it cannot be read.
    static func tail(of path: String, maxBytes: Int, from start: Int = 0) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd() else { return "" }
        let offset = max(UInt64(max(start, 0)), end > UInt64(maxBytes) ? end - UInt64(maxBytes) : 0)
        guard (try? handle.seek(toOffset: min(offset, end))) != nil,
              let data = try? handle.readToEnd()
        else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// `"name"`, with embedded double quotes doubled.
    static func identifier(_ name: String) throws -> String {
        guard !name.isEmpty, !name.contains("\0") else {
            throw PostgresServerError("not a usable SQL identifier: \(name.debugDescription)")
        }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `'text'`, with embedded single quotes doubled (standard_conforming_strings is on).
    static func literal(_ text: String) throws -> String {
        guard !text.contains("\0") else {
            throw PostgresServerError("SQL strings cannot contain NUL characters")
        }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    static func percentEncoded(_ text: String) -> String {
        var unreserved = CharacterSet(charactersIn: "-._~")
        unreserved.formUnion(CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
