#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// `prefs serve`'s own defences, as a real process: who may connect, the token file, the
/// addresses it answers to, and connections that send nothing.
@Suite("prefs serve: security of the process", .offThePool, .slowTier)
struct ServeSecurityTests {
    static let curl = ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var canSwitchUser: Bool { getuid() == 0 && curl != nil && setpriv != nil }

    /// `curl` run as user `nobody` (uid 65534): the status code it got for `url`. It blocks
    /// until curl exits: callers run it on a thread of their own (`onOwnThread`).
    static func curlAsNobody(_ url: String, headers: [String] = [], _ extra: [String] = []) throws -> String {
        let result = try runProcess(try #require(setpriv), ["--reuid=65534", "--regid=65534", "--clear-groups", try #require(curl),
                                                             "-s", "-g", "-o", "/dev/null", "-w", "%{http_code}"] + headers.flatMap { ["-H", $0] } + extra + [url])
        return result.output
    }

    @Test("A token file its group or others can read, or another user owns, is refused: one line naming the file and its mode, exit 1",
          arguments: [0o644, 0o640, 0o604])
    func tokenFileModes(mode: Int) async throws {
        let directory = try TemporaryDirectory()
        let tokenFile = directory.path + "/token"
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        #expect(chmod(tokenFile, mode_t(mode)) == 0)
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite", ["--port", "0", "--token-file", tokenFile])
        #expect(await serve.exitStatus() == 1)
        let errors = serve.errorLines.all
        #expect(errors.count == 1 && errors[0].contains(tokenFile) && errors[0].contains("0" + String(mode, radix: 8)), "\(errors)")
        #expect(serve.lines.all.isEmpty)
    }

    @Test("Without a token, the owner's requests pass, and the first line says the console is the owner's alone")
    func ownerIsServed() async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite")
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        #expect(serve.lines.all.first?.contains("only") == true, "\(serve.lines.all)")
        let response = try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/keys") }
        #expect(response.status == 200)
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }

    @Test("Without a token, another local user gets 403 and changes nothing; with one, the token decides",
          .enabled(if: canSwitchUser, "needs root, curl and setpriv to connect as another user"))
    func otherUserRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/defaults.sqlite"
        try await DefaultsStore(path: database).set(.text("s3cr3t"), for: DefaultsKey<SQLiteValue?>("api_key"))
        let serve = try ServeProcess(database: database)
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let status = try await onOwnThread { try Self.curlAsNobody("http://127.0.0.1:\(port)/api/keys") }
        #expect(status == "403")
        let put = try await onOwnThread {
            try Self.curlAsNobody("http://127.0.0.1:\(port)/api/keys/api_key", headers: ["Content-Type: application/json"], ["-X", "PUT", "-d", #"{"value":"attacker"}"#])
        }
        #expect(put == "403")
        #expect(try DefaultsStore(path: database).value(for: DefaultsKey<SQLiteValue?>("api_key")) == .text("s3cr3t"))
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)

        let tokenFile = directory.path + "/token"
        try Data("t0ken\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        #expect(chmod(tokenFile, 0o600) == 0)
        let withToken = try ServeProcess(database: database, ["--port", "0", "--token-file", tokenFile])
        let tokenPort = try #require(await withToken.port(), "stderr: \(withToken.errorLines.all)")
        #expect(try await onOwnThread { try Self.curlAsNobody("http://127.0.0.1:\(tokenPort)/api/keys") } == "401")
        #expect(try await onOwnThread { try Self.curlAsNobody("http://127.0.0.1:\(tokenPort)/api/keys", headers: ["Authorization: Bearer t0ken"]) } == "200")
        withToken.send(SIGTERM)
        #expect(await withToken.exitStatus() == 0)
    }

    @Test("--bind 0:0:0:0:0:0:0:1 prints http://[::1]:PORT/ and answers a browser's Host: [::1]:PORT",
          .enabled(if: curl != nil, "needs curl for an IPv6 request"))
    func ipv6LongForm() async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite", ["--bind", "0:0:0:0:0:0:0:1", "--port", "0"])
        _ = await serve.lines.waitAsync(timeout: .seconds(60)) { !$0.isEmpty || !serve.errorLines.all.isEmpty }
        let first = try #require(serve.lines.all.first, "stderr: \(serve.errorLines.all)")
        let match = try #require(first.range(of: #"http://\[::1\]:(\d+)/"#, options: .regularExpression), "\(first)")
        let url = String(first[match])
        for target in [url + "api/keys", url.replacingOccurrences(of: "[::1]", with: "[0:0:0:0:0:0:0:1]") + "api/keys"] {
            let result = try await onOwnThread { try runProcess(try #require(Self.curl), ["-s", "-g", "-o", "/dev/null", "-w", "%{http_code}", target]) }
            #expect(result.output == "200", "\(target): \(result.output) \(result.error)")
        }
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }

    @Test("A connection that sends nothing, or half a request head, is closed by the server")
    func silentConnectionsClosed() async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite")
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let silent = try RawHTTPConnection(port: port)
        let half = try RawHTTPConnection(port: port)
        try half.write(Data("GET /api/keys HTTP/1.1\r\nHost: 127.0.0.1".utf8))
        #expect(try await onOwnThread { silent.waitForClose(timeout: .seconds(60)) }, "a silent connection stays open")
        #expect(try await onOwnThread { half.waitForClose(timeout: .seconds(60)) }, "a half-sent head stays open")
        // The server still answers.
        #expect(try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/keys") }.status == 200)
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }

    @Test("A client with no token that announces a 1 MB body and sends a byte every second is closed (the 401 does not end it), and the server still answers")
    func trickledBodyClosed() async throws {
        let directory = try TemporaryDirectory()
        let tokenFile = directory.path + "/token"
        try Data("t0ken\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        #expect(chmod(tokenFile, 0o600) == 0)
        let serve = try ServeProcess(database: directory.path + "/defaults.sqlite", ["--port", "0", "--token-file", tokenFile])
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let trickle = try RawHTTPConnection(port: port)
        try trickle.write(Data("PUT /api/keys/x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n".utf8))
        // One byte a second, each of which an idle timer counts as activity; the server must
        // close the connection anyway (15 s after the head), well within the test's 90 s.
        let closed = try await onOwnThread { () -> Bool in
            for _ in 0..<90 {
                if trickle.waitForClose(timeout: .seconds(1)) { return true }
                do { try trickle.write(Data("x".utf8)) } catch { return true }
            }
            return false
        }
        #expect(closed, "a trickled body holds its connection")
        #expect(try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/keys", headers: ["Authorization": "Bearer t0ken"]) }.status == 200)
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }
}
#endif
