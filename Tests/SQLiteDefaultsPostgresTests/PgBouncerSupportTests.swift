#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import Testing
import TestScheduling

/// The test support for a relayed fleet: a server started with extra settings, and PgBouncer in
/// front of it, reached by postgres-nio.
@Suite("Test support: server settings and PgBouncer", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct PgBouncerSupportTests {
    @Test("settings given at start hold after a restart")
    func settingsSurviveRestart() async throws {
        let server = try await PostgresServer.start(label: "settings", settings: ["wal_level": "logical"])
        defer { server.remove() }  // on a failure path; else awaited at the end
        #expect(server.settings == ["wal_level": "logical"])
        #expect(try await server.psql("SHOW wal_level") == "logical")
        try await server.restart()
        #expect(try await server.psql("SHOW wal_level") == "logical", "\(server.logTail())")
        await server.remove()
    }

    @Test("a setting name that is not one is refused before anything starts")
    func badSettingName() async throws {
        await #expect(throws: PostgresServerError.self) {
            try await PostgresServer.start(label: "settings", settings: ["wal_level; rm": "logical"])
        }
    }

    @Test("postgres-nio reaches the server through PgBouncer in transaction mode")
    func throughBouncer() async throws {
        let server = try await PostgresServer.start(label: "relayed", settings: ["wal_level": "logical"])
        defer { server.remove() }  // on a failure path; else awaited at the end
        try await server.createUser("fleet", password: "secret")
        try await server.createDatabase("prefs", owner: "fleet")
        let bouncer = try await PgBouncer.start(inFrontOf: server, database: "prefs", user: "fleet", password: "secret")
        defer { bouncer.remove() }  // on a failure path; else awaited at the end
        #expect(bouncer.isRunning)
        #expect(bouncer.url() == "postgres://fleet:secret@127.0.0.1:\(bouncer.port)/prefs")

        var configuration = PostgresConnection.Configuration(
            host: bouncer.host, port: bouncer.port, username: "fleet", password: "secret", database: "prefs", tls: .disable
        )
        // What clients send (PostgresURL passes application_name on): PgBouncer must not refuse it.
        configuration.options.additionalStartupParameters = [("application_name", "relay-test"), ("extra_float_digits", "3")]
        let logger = Logger(label: "pgbouncer-test")
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        } catch {
            Issue.record("cannot connect through PgBouncer: \(String(reflecting: error))\n\(bouncer.logTail())")
            return
        }
        do {
            var one: [Int] = []
            for try await value in try await connection.query("SELECT 1", logger: logger).decode(Int.self) { one.append(value) }
            #expect(one == [1])

            // A transaction: one server connection for its statements, released at COMMIT.
            _ = try await connection.query("BEGIN", logger: logger)
            var database: [String] = []
            for try await value in try await connection.query("SELECT current_database()", logger: logger).decode(String.self) {
                database.append(value)
            }
            _ = try await connection.query("COMMIT", logger: logger)
            #expect(database == ["prefs"])
        } catch {
            Issue.record("query through PgBouncer failed: \(String(reflecting: error))\n\(bouncer.logTail())")
        }
        try await connection.close()
        #expect(bouncer.logTail().contains("login attempt: db=prefs user=fleet"))

        // A wrong password is refused by PgBouncer itself.
        var wrong = configuration
        wrong.password = "wrong"
        await #expect(throws: (any Error).self) {
            let refused = try await PostgresConnection.connect(configuration: wrong, id: 2, logger: logger)
            try await refused.close()
        }

        await bouncer.stop()
        #expect(!bouncer.isRunning)
        await #expect(throws: (any Error).self) {
            let refused = try await PostgresConnection.connect(configuration: configuration, id: 3, logger: logger)
            try await refused.close()
        }
        await bouncer.remove()
        #expect(!FileManager.default.fileExists(atPath: bouncer.directory))
        await server.remove()
    }
}
#endif
