#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("prefs serve, as a real process", .offThePool, .slowTier)
struct ServeCommandTests {
    @Test("The first line names http://127.0.0.1:PORT/ (--port 0 picks one); the API answers; SIGTERM exits 0")
    func startsServesStops() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/defaults.sqlite"
        try await DefaultsStore(path: database).set(.integer(3), for: DefaultsKey<SQLiteValue?>("retries"))
        let serve = try ServeProcess(database: database)
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        #expect(serve.lines.all.first?.contains("http://127.0.0.1:\(port)/") == true)
        let response = try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/keys") }
        #expect(response.status == 200 && response.text.contains(#"{"key":"retries","value":3"#))
        let page = try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/") }
        #expect(page.status == 200 && page.text.contains("console.js"))
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
        #expect(serve.errorLines.all.isEmpty)
    }

    @Test("SIGTERM while an event-stream client is connected still exits 0 promptly")
    func sigtermWithClient() async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite")
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let stream = try await onOwnThread { () -> RawHTTPConnection in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET", "/api/events", host: "127.0.0.1:\(port)")
            _ = try connection.head()
            return connection
        }
        serve.send(SIGTERM)
        #expect(await serve.exitStatus(timeout: .seconds(20)) == 0)
        withExtendedLifetime(stream) {}
    }

    @Test("A refused start is one line on stderr and exit 1", arguments: [
        (["--bind", "not-an-address"], "--bind"),
        (["--bind", "0.0.0.0", "--port", "0"], "--token-file"),
        (["--bind", "192.0.2.1", "--port", "0"], "--token-file"),
        (["--port", "0", "--token-file", "/nonexistent/token"], "token file"),
        (["--port", "70000"], "--port"),
    ])
    func refusedStart(arguments: [String], mentions: String) async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite", arguments)
        #expect(await serve.exitStatus() == 1)
        let errors = serve.errorLines.all
        #expect(errors.count == 1 && errors.first?.hasPrefix("prefs: ") == true && errors.first?.contains(mentions) == true, "\(errors)")
        #expect(serve.lines.all.isEmpty)
    }

    @Test("An empty token file and a port in use are refused with one line and exit 1")
    func emptyTokenAndPortInUse() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/defaults.sqlite"
        let tokenFile = directory.path + "/token"
        try Data("\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        #expect(chmod(tokenFile, 0o600) == 0)
        let empty = try ServeProcess(database: database, ["--port", "0", "--token-file", tokenFile])
        #expect(await empty.exitStatus() == 1)
        #expect(empty.errorLines.all.count == 1 && empty.errorLines.all.first?.contains("token") == true)

        let first = try ServeProcess(database: database)
        let port = try #require(await first.port())
        let second = try ServeProcess(database: database, ["--port", String(port)])
        #expect(await second.exitStatus() == 1)
        let errors = second.errorLines.all
        #expect(errors.count == 1 && errors.first?.hasPrefix("prefs: ") == true && errors.first?.contains("in use") == true, "\(errors)")
        first.send(SIGTERM)
        #expect(await first.exitStatus() == 0)
    }

    @Test("With a token file, a non-loopback bind starts, and requests need the token")
    func tokenFileServes() async throws {
        let directory = try TemporaryDirectory()
        let tokenFile = directory.path + "/token"
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        #expect(chmod(tokenFile, 0o600) == 0)
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite", ["--bind", "0.0.0.0", "--port", "0", "--token-file", tokenFile])
        _ = await serve.lines.waitAsync(timeout: .seconds(60)) { !$0.isEmpty || !serve.errorLines.all.isEmpty }
        let first = try #require(serve.lines.all.first, "stderr: \(serve.errorLines.all)")
        let port = try #require(first.range(of: #":(\d+)/"#, options: .regularExpression).flatMap { Int(first[$0].dropFirst().dropLast()) })
        #expect(first.contains("http://0.0.0.0:\(port)/"))
        let refused = try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/keys") }
        #expect(refused.status == 401)
        let allowed = try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/keys", headers: ["Authorization": "Bearer s3cret"]) }
        #expect(allowed.status == 200)
        let rebound = try await onOwnThread {
            try RawHTTPConnection.request(port: port, "GET", "/api/keys", headers: ["Authorization": "Bearer s3cret"], host: "evil.example:\(port)")
        }
        #expect(rebound.status == 403)
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }
}
#endif
