#if Fleet && Prefs
import ChildProcesses
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import Testing
import TestScheduling

/// `prefs sync` against a server that asks for a password (scram-sha-256): the password
/// without putting it in the command line, as libpq takes it.
@Suite("prefs sync: the password outside the URL", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct SyncPasswordTests {
    typealias Sidecar = SyncCommandTests.Sidecar

    /// A server with the user `fleet` (password `password`) owning the database `fleetdb`.
    static func withPasswordServer(password: String = "pa:ss\\word",
                                   _ body: (PostgresServer, String, TemporaryDirectory) async throws -> Void) async throws {
        try await withServer { server in
            try await server.createUser("fleet", password: password)
            try await server.createDatabase("fleetdb", owner: "fleet")
            let directory = try TemporaryDirectory()
            try await body(server, server.url(user: "fleet", database: "fleetdb"), directory)
        }
    }

    static func privateFile(_ path: String, _ contents: String, mode: mode_t = 0o600) throws {
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, mode) == 0)
    }

    /// Waits for `ready`, then stops the sidecar with SIGTERM: it must exit 0 and never print `secret`.
    static func expectReadyThenStop(_ sidecar: Sidecar, secret: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(await sidecar.ready(), "\(sidecar.errors.all)", sourceLocation: sourceLocation)
        sidecar.process.send(SIGTERM)
        let outcome = await sidecar.process.wait(timeout: .seconds(30))
        #expect(outcome?.status == 0, sourceLocation: sourceLocation)
        #expect(!(outcome?.standardError.contains(secret) ?? true), sourceLocation: sourceLocation)
    }

    @Test("PGPASSWORD is used")
    func environmentPassword() async throws {
        try await Self.withPasswordServer { server, url, directory in
            let sidecar = try Sidecar(database: directory.database, arguments: ["--postgres", url, "--ready"],
                                      environment: ["PGPASSWORD": "pa:ss\\word"])
            await Self.expectReadyThenStop(sidecar, secret: "pa:ss")
        }
    }

    @Test("--password-file: a private file is used, and beats PGPASSWORD; one open to others, or missing, is one line and exit 1")
    func passwordFile() async throws {
        try await Self.withPasswordServer { server, url, directory in
            let file = directory.path + "/password"
            try Self.privateFile(file, "pa:ss\\word\n")
            let sidecar = try Sidecar(database: directory.database, arguments: ["--postgres", url, "--password-file", file, "--ready"],
                                      environment: ["PGPASSWORD": "wrong"])
            await Self.expectReadyThenStop(sidecar, secret: "pa:ss")

            for (path, mode, says) in [(file, mode_t(0o644), "group or others"), (file, mode_t(0o640), "group or others"),
                                       (directory.path + "/missing", mode_t(0o600), "cannot read")] {
                if path == file { #expect(chmod(file, mode) == 0) }
                let refused = try Sidecar(database: directory.database, arguments: ["--postgres", url, "--password-file", path])
                let outcome = await refused.process.wait(timeout: .seconds(60))
                #expect(outcome?.status == 1)
                let lines = outcome?.standardError.split(separator: "\n") ?? []
                #expect(lines.count == 1, "\(lines)")
                #expect(lines.first?.hasPrefix("prefs: ") == true)
                #expect(lines.first?.contains(says) == true, "\(lines)")
                #expect(lines.first?.contains("pa:ss") == false)
            }
        }
    }

    @Test("PGPASSFILE (libpq's format, escapes and wildcards) is used when private, ignored with one warning when not")
    func pgpass() async throws {
        try await Self.withPasswordServer { server, url, directory in
            let pgpass = directory.path + "/pgpass"
            try Self.privateFile(pgpass, """
                # another server first, then this one
                otherhost:*:*:*:nope
                127.0.0.1:\(server.port):fleetdb:fleet:pa\\:ss\\\\word

                """)
            let sidecar = try Sidecar(database: directory.database, arguments: ["--postgres", url, "--ready"],
                                      environment: ["PGPASSFILE": pgpass])
            await Self.expectReadyThenStop(sidecar, secret: "pa:ss")

            #expect(chmod(pgpass, 0o644) == 0)
            let ignored = try Sidecar(database: directory.database, arguments: ["--postgres", url],
                                      environment: ["PGPASSFILE": pgpass])
            let outcome = await ignored.process.wait(timeout: .seconds(60))
            #expect(outcome?.status == 1)
            let lines = outcome?.standardError.split(separator: "\n") ?? []
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.contains("group or world access") == true, "\(lines)")
            #expect(lines.last?.contains("password") == true, "\(lines)")
        }
    }

    @Test("a password in the URL still works, with one warning that never shows it")
    func urlPassword() async throws {
        try await Self.withPasswordServer(password: "in-the-url") { server, _, directory in
            let sidecar = try Sidecar(database: directory.database,
                                      arguments: ["--postgres", server.url(user: "fleet", password: "in-the-url", database: "fleetdb"), "--ready"])
            #expect(await sidecar.ready())
            let warnings = sidecar.errors.all.filter { $0.contains("warning") }
            #expect(warnings.count == 1, "\(sidecar.errors.all)")
            #expect(warnings.first?.contains("process list") == true)
            await Self.expectReadyThenStop(sidecar, secret: "in-the-url")
        }
    }
}
#endif
