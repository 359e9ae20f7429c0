#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// The edges of `Last-Event-ID`: a position newer than the file's newest change, and ids that
/// name no position at all (issue 46).
@Suite("Console event stream: Last-Event-ID edges", .offThePool)
struct EventResumeEdgeTests {
    /// The first event (`event:` and `data:`) on `connection`; nil at the deadline.
    private static func firstEvent(_ connection: RawHTTPConnection) throws -> (event: String?, data: String)? {
        var event: String?
        while let line = try connection.line(timeout: .seconds(60)) {
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { return (event, String(line.dropFirst(6))) }
        }
        return nil
    }

    @Test("a Last-Event-ID newer than the newest change: compacted names the oldest change kept, not 0", arguments: ConsoleMount.all)
    func futureIDNamesTheOldestKept(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        for name in ["a", "b", "c"] { fixture.store[DefaultsKey<Int>(name, default: 0)] = 1 }
        let oldest = try #require(try await fixture.store.changes(since: 0).first { _ in true }?.sequence)
        let newest = try await fixture.store.newestSequence()
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let frame = try #require(try await onOwnThread { () throws -> (event: String?, data: String)? in
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET", "/api/events", headers: ["Last-Event-ID": String(newest + 996)], host: "127.0.0.1:\(port)")
                #expect(try connection.head().status == 200)
                return try Self.firstEvent(connection)
            })
            #expect(frame.event == "compacted")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(frame.data.utf8)) as? [String: Any])
            #expect(object["oldest"] as? Int == Int(oldest), "\(frame.data)")
            #expect(object["newest"] as? Int == Int(newest), "\(frame.data)")
        }
    }

    @Test("a Last-Event-ID that names no sequence (-1, abc, +5, past Int64, 1.5) is refused with 400, not read as live",
          arguments: ["-1", "abc", "+5", "99999999999999999999", "1.5", "0x10"])
    func invalidIDsAreRefused(id: String) async throws {
        let fixture = try ConsoleFixture(mount: .hummingbird)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let response = try await onOwnThread {
                try RawHTTPConnection.request(port: port, "GET", "/api/events", headers: ["Last-Event-ID": id], host: "127.0.0.1:\(port)")
            }
            #expect(response.status == 400, "\(id): \(response.status)")
            #expect(String(decoding: response.body, as: UTF8.self).contains("Last-Event-ID"))
        }
    }

    @Test("an empty Last-Event-ID (what EventSource sends after an empty id:) starts live")
    func emptyIDStartsLive() async throws {
        let fixture = try ConsoleFixture(mount: .hummingbird)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let connection = try await onOwnThread { () throws -> RawHTTPConnection in
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET", "/api/events", headers: ["Last-Event-ID": ""], host: "127.0.0.1:\(port)")
                #expect(try connection.head().status == 200)
                return connection
            }
            fixture.store[DefaultsKey<Int>("n", default: 0)] = 7
            let frame = try #require(try await onOwnThread { try Self.firstEvent(connection) })
            #expect(frame.event == nil && frame.data.contains(#""key":"n""#), "\(frame.data)")
        }
    }
}
#endif
