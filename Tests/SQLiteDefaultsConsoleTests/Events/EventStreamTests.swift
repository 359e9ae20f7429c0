#if Console && Prefs
import DefaultsTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLiteDefaults
import SQLiteDefaultsConsole
import Testing
import TestScheduling

@Suite("Console event stream", .offThePool, .serialized)
struct EventStreamTests {
    /// Opens `GET /api/events` on a live server and reads its head.
    static func openStream(port: Int) throws -> RawHTTPConnection {
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET", "/api/events", host: "127.0.0.1:\(port)")
        let head = try connection.head()
        #expect(head.status == 200)
        #expect(head.headers.first { $0.0.lowercased() == "content-type" }?.1.hasPrefix("text/event-stream") == true)
        return connection
    }

    @Test("The head is sent at once; a commit by another store arrives as one event {seq, key, value}", arguments: ConsoleMount.all)
    func headThenEvents(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let stream = try await onOwnThread { try Self.openStream(port: port) }
            // The head arrived before any change: now another writer commits, one change at a
            // time (changes of one key that commit before the console reads them may arrive as
            // one event with the newest value, as they do for `prefs watch`).
            let other = try DefaultsStore(path: fixture.path)
            var events: [String] = []
            try await other.set(.integer(45), for: DefaultsKey<SQLiteValue?>("timeout"))
            events += try await onOwnThread { try stream.nextEvent() }.map { [$0] } ?? []
            try await other.set(.text("<b>x</b>"), for: DefaultsKey<SQLiteValue?>("html"))
            events += try await onOwnThread { try stream.nextEvent() }.map { [$0] } ?? []
            try await other.remove(DefaultsKey<SQLiteValue?>("timeout"))
            events += try await onOwnThread { try stream.nextEvent() }.map { [$0] } ?? []
            try #require(events.count == 3)
            let parsed = events.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            try #require(parsed.count == 3)
            #expect(parsed.map { $0["key"] as? String } == ["timeout", "html", "timeout"])
            #expect(parsed[0]["value"] as? Int == 45 && parsed[1]["value"] as? String == "<b>x</b>")
            #expect(parsed[2]["value"] is NSNull)
            // Origin is read from the history's writer: this process wrote it (another store of
            // the same process), so it is "local", as the console's own writes are.
            #expect(parsed[0]["origin"] as? String == "local")
            // The writer, as `prefs history --json` names it (the other store is this process).
            #expect(parsed.allSatisfy { ($0["writer"] as? [String: Any])?["kind"] as? String == "library" })
            #expect((parsed[0]["writer"] as? [String: Any])?["pid"] as? Int == Int(getpid()))
            let sequences = parsed.compactMap { $0["seq"] as? Int }
            #expect(sequences.count == 3 && sequences == sequences.sorted() && Set(sequences).count == 3)
        }
    }

    @Test("100 event-stream clients each get every change", arguments: ConsoleMount.all)
    func hundredClients(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let streams = try await onOwnThread { try (0..<100).map { _ in try Self.openStream(port: port) } }
            #expect(await waitUntil { fixture.console.eventStreamClientCount == 100 })
            try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("k"))
            let received = try await onOwnThread { try streams.filter { try $0.nextEvent()?.contains(#""key":"k""#) == true }.count }
            #expect(received == 100)
        }
    }

    @Test("A client that never reads is dropped once it falls behind the limit: the server does not buffer without bound", arguments: ConsoleMount.all)
    func stalledClientIsDropped(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount, configuration: .init(eventBufferLimit: 8 * 1024))
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let stalled = try RawHTTPConnection(port: port)
            try stalled.send("GET", "/api/events", host: "127.0.0.1:\(port)")
            #expect(await waitUntil { fixture.console.eventStreamClientCount == 1 })
            // Events of 16 KB, each more than the client may fall behind (values the history
            // keeps whole, since events are read from it): the first one it cannot take ends it.
            // The kernel buffers up to about 4 MB on loopback before the server feels the stall
            // (tcp_wmem's maximum, plus the receiver's window), so writes go on until the client
            // is dropped, up to 9.6 MB: 200 writes (3.2 MB) could all fit in the socket.
            let values = ["v", "w"].map { SQLiteValue.text(String(repeating: $0, count: 16_000)) }
            for index in 0..<600 {
                try await fixture.store.set(values[index % 2], for: DefaultsKey<SQLiteValue?>("k"))
                if index % 100 == 99, fixture.console.eventStreamClientCount == 0 { break }
            }
            #expect(await waitUntil(timeout: .seconds(120)) { fixture.console.eventStreamClientCount == 0 })
            withExtendedLifetime(stalled) {}
        }
    }

    @Test("Closing the event streams ends them with the response finished", arguments: ConsoleMount.all)
    func closeEventStreams(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let stream = try await onOwnThread { try Self.openStream(port: port) }
            #expect(await waitUntil { fixture.console.eventStreamClientCount == 1 })
            fixture.console.closeEventStreams()
            // The chunked body ends: a zero-length chunk arrives.
            let ended = try await onOwnThread { () -> Bool in
                while let line = try stream.line(timeout: .seconds(10)) { if line == "0" { return true } }
                return false
            }
            #expect(ended)
            #expect(await waitUntil { fixture.console.eventStreamClientCount == 0 })
        }
    }

    @Test("Declaring or undeclaring a key sends `event: declarations`, so the page reloads types and defaults", arguments: ConsoleMount.all)
    func declarationEvents(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let stream = try await onOwnThread { try Self.openStream(port: port) }
            // The barrier: a declaration made before the server has registered the stream is
            // announced to nobody (it failed that way once, under the slow tier's load).
            #expect(await waitUntil { fixture.console.eventStreamClientCount == 1 })
            let waitForDeclarations = {
                try await onOwnThread { () -> Bool in
                    let deadline = ContinuousClock.now + .seconds(60)
                    while ContinuousClock.now < deadline, let line = try stream.line(timeout: deadline - ContinuousClock.now) {
                        if line == "event: declarations" { return true }
                    }
                    return false
                }
            }
            let other = try DefaultsStore(path: fixture.path)
            try await other.declare(DefaultsDeclaration(key: "verbose", type: .bool, defaultValue: .integer(0)))
            #expect(try await waitForDeclarations(), "declared")
            try await other.undeclare("verbose")
            #expect(try await waitForDeclarations(), "undeclared")
        }
    }
}
#endif
