import ChildProcesses
import Foundation
import Synchronization

/// How a server comes to be and goes: its directory, `initdb`, its certificate, `pg_ctl`, and
/// the small text helpers its SQL and URLs need.
extension PostgresServer {
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
    static func searchableByOthers(_ path: String) -> Bool {
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
    static func initializeCluster(in directory: String, installation: PostgresInstallation, tls: Bool) throws {
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
    static func makeCertificate(in dataDirectory: String, directory: String, installation: PostgresInstallation) throws {
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
    static func commandLineSettings(_ settings: [String: String]) throws -> String {
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
    static func startPostmaster(
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
