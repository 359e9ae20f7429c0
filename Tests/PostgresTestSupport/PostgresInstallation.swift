import ChildProcesses
import Foundation

/// The PostgreSQL programs a throwaway server needs, the account the server runs as, and a way
/// to run those programs (as that account when there is one) until they finish.
struct PostgresInstallation: Sendable {
    /// An unprivileged account: PostgreSQL refuses to run as root.
    struct Account: Sendable {
        let name: String
        let uid: uid_t
        let gid: gid_t
    }

    let binDirectory: String
    let initdb: String
    let pgCtl: String
    let psql: String
    /// When this process runs as root: the account initdb and pg_ctl run as (`postgres` when
    /// that system user exists, else `nobody`); nil otherwise.
    let account: Account?
    /// `runuser -u NAME --` (or `su` through `sh`) when `account` is set.
    private let switchUser: SwitchUser?

    private enum SwitchUser: Sendable {
        case runuser(String)
        case su(String)
    }

    /// Finds initdb, pg_ctl and postgres (the directory of `initdb` on `$PATH`, else the newest
    /// `/usr/lib/postgresql/*/bin`, where Debian installs them), and psql.
    /// - Throws: `PostgresServerError` when the server programs are not installed, or when this
    ///   process is root and neither `runuser` nor `su` is there to drop privileges.
    static func locate() throws -> PostgresInstallation {
        guard let binDirectory = serverBinDirectory() else {
            throw PostgresServerError(
                "the PostgreSQL server programs (initdb, pg_ctl, postgres) are not installed: looked on $PATH and in "
                    + "/usr/lib/postgresql/*/bin; on Debian: apt-get install postgresql"
            )
        }
        let psql = isExecutable(binDirectory + "/psql") ? binDirectory + "/psql" : ChildProcess.findOnPath("psql")
        guard let psql else {
            throw PostgresServerError("psql is not installed (looked in \(binDirectory) and on $PATH)")
        }
        var account: Account?
        var switchUser: SwitchUser?
        if geteuid() == 0 {
            guard let found = lookUpAccount("postgres") ?? lookUpAccount("nobody") else {
                throw PostgresServerError("running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL as")
            }
            account = found
            if let runuser = ChildProcess.findOnPath("runuser")
                ?? ["/usr/sbin/runuser", "/sbin/runuser"].first(where: isExecutable) {
                switchUser = .runuser(runuser)
            } else if let su = ChildProcess.findOnPath("su") ?? ["/bin/su", "/usr/bin/su"].first(where: isExecutable) {
                switchUser = .su(su)
            } else {
                throw PostgresServerError("running as root, and neither runuser nor su is installed to run PostgreSQL as \(found.name)")
            }
        }
        return PostgresInstallation(
            binDirectory: binDirectory,
            initdb: binDirectory + "/initdb",
            pgCtl: binDirectory + "/pg_ctl",
            psql: psql,
            account: account,
            switchUser: switchUser
        )
    }

    /// Runs `executable` with `arguments` in `directory` and waits for it.
    /// - Parameters:
    ///   - asServerAccount: run it as ``account`` (through runuser or su) when that is set.
    ///   - environment: variables set on top of this process's environment, from which every
    ///     `PG…` variable (PGHOST, PGPORT, PGUSER…) is removed first. `LC_ALL=C` is set, so
    ///     messages are in English.
    ///   - timeout: after this the command is killed and an error thrown.
    /// - Returns: the exit status and output, whatever the status.
    /// - Throws: `PostgresServerError` when the command cannot be started or times out.
    func run(
        _ executable: String,
        _ arguments: [String],
        asServerAccount: Bool,
        in directory: String,
        environment: [String: String] = [:],
        timeout: Duration
    ) throws -> ChildCommand.Result {
        var argv = [executable] + arguments
        if asServerAccount, let account, let switchUser {
            switch switchUser {
            case .runuser(let runuser):
                argv = [runuser, "-u", account.name, "--"] + argv
            case .su(let su):
                let script = "exec " + argv.map(Self.shellQuoted).joined(separator: " ")
                argv = [su, "-s", "/bin/sh", account.name, "-c", script]
            }
        }
        let command = ChildCommand(
            arguments: argv,
            directory: directory,
            environment: ["LC_ALL": "C"].merging(environment) { $1 },
            display: Self.commandLine(executable, arguments, environment: environment)
        )
        return try command.run(timeout: timeout)
    }

    /// Hands `path` to ``account`` (when there is one), so the server can write there.
    /// - Throws: `PostgresServerError` when `chown` fails.
    func handOver(_ path: String) throws {
        guard let account else { return }
        guard chown(path, account.uid, account.gid) == 0 else {
            throw PostgresServerError("cannot hand \(path) to user \(account.name): \(String(cString: strerror(errno)))")
        }
    }

    // MARK: - Helpers

    private static func serverBinDirectory() -> String? {
        func complete(_ directory: String) -> Bool {
            ["initdb", "pg_ctl", "postgres"].allSatisfy { isExecutable(directory + "/" + $0) }
        }
        if let initdb = ChildProcess.findOnPath("initdb") {
            // Debian links /usr/bin-style names to /usr/lib/postgresql/N/bin; follow the link.
            let directory = URL(fileURLWithPath: initdb).resolvingSymlinksInPath().deletingLastPathComponent().path
            if complete(directory) { return directory }
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .filter { complete("\(root)/\($0)/bin") }
        func key(_ version: String) -> [Int] { version.split(separator: ".").map { Int($0) ?? -1 } }
        let newest = versions.max { key($0).lexicographicallyPrecedes(key($1)) }
        return newest.map { "\(root)/\($0)/bin" }
    }

    private static func lookUpAccount(_ name: String) -> Account? {
        guard let entry = getpwnam(name) else { return nil }
        return Account(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    private static func isExecutable(_ path: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: path)
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/._-=:,@%+".contains($0)) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func commandLine(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) -> String {
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\(shellQuoted($0.value))" }
        let name = URL(fileURLWithPath: executable).lastPathComponent
        return (variables + [name] + arguments.map(shellQuoted)).joined(separator: " ")
    }
}
