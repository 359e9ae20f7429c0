#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// Event streams stay open for hours and the server's connections are bounded: one token holds
/// at most `eventStreamsPerToken` streams, so no token holder can take every connection (issue
/// 46, a sibling of finding 40: "every table with a global cap").
@Suite("Console event stream: streams per token", .offThePool)
struct EventStreamPerTokenTests {
    static let reader = ConsoleTokens.newToken(), other = ConsoleTokens.newToken()

    /// Opens `/api/events` with `token`; the connection (kept open) and the head's status.
    private static func open(port: Int, token: String) throws -> (connection: RawHTTPConnection, status: Int, retryAfter: String?) {
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET", "/api/events", headers: ["Authorization": "Bearer " + token], host: "127.0.0.1:\(port)")
        let head = try connection.head()
        return (connection, head.status, head.headers.first { $0.0.lowercased() == "retry-after" }?.1)
    }

    @Test("a token at its limit gets 429 with Retry-After and opens nothing; another token still gets its stream; closing one lets it open again",
          arguments: ConsoleMount.all)
    func aTokenAtItsLimitIsRefused(mount: ConsoleMount) async throws {
        let tokens = try ConsoleTokens(entries: [
            .init(name: "bob", role: .read, token: Self.reader),
            .init(name: "eve", role: .read, token: Self.other),
        ])
        var configuration = DefaultsConsole.Configuration(tokens: tokens, allowedHosts: ["127.0.0.1"])
        configuration.eventStreamsPerToken = 3
        // A closed client is found by the next write to it: keep-alives each second.
        configuration.keepAliveInterval = .seconds(1)
        let fixture = try ConsoleFixture(mount: mount, configuration: configuration)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            try await onOwnThread {
                var open: [RawHTTPConnection] = []
                for _ in 0..<3 {
                    let stream = try Self.open(port: port, token: Self.reader)
                    #expect(stream.status == 200)
                    open.append(stream.connection)
                }
                let refused = try Self.open(port: port, token: Self.reader)
                #expect(refused.status == 429)
                #expect(refused.retryAfter != nil)
                #expect(fixture.console.eventStreamClientCount == 3, "the refused request opened a stream")

                let another = try Self.open(port: port, token: Self.other)
                #expect(another.status == 200, "another token's stream was refused")

                // One of the reader's streams goes: once the server has seen it close, the reader
                // may open one again.
                open.removeFirst()
                #expect(waitBlocking(timeout: .seconds(60)) { fixture.console.eventStreamClientCount == 3 })
                let again = try Self.open(port: port, token: Self.reader)
                #expect(again.status == 200)
                withExtendedLifetime((open, another.connection, again.connection)) {}
            }
        }
    }
}
#endif
