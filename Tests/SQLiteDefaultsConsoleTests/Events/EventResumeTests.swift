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

/// The event stream names each event by its history sequence (`id:`), and a client that comes
/// back with `Last-Event-ID` receives exactly what it missed, or `event: compacted`.
@Suite("Console event stream: ids and resuming", .offThePool)
struct EventResumeTests {
    /// Reads `id:`/`event:`/`data:` lines until a blank line ends one event; nil at the deadline.
    /// Keep-alive comments do not count as events: `deadline`, when given, bounds the wait for one.
    private static func nextFrame(_ connection: RawHTTPConnection, deadline: ContinuousClock.Instant? = nil) throws
        -> (id: Int64?, event: String?, data: String)? {
        var id: Int64?, event: String?, data: String?
        while deadline.map({ ContinuousClock.now < $0 }) ?? true, let line = try connection.line(timeout: .seconds(60)) {
            if line.isEmpty {
                if let data { return (id, event, data) }
                id = nil; event = nil   // a comment or a lone id: not an event
                continue
            }
            if line.hasPrefix("id: ") { id = Int64(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
        }
        return nil
    }

    private static func open(port: Int, lastEventID: Int64? = nil) throws -> RawHTTPConnection {
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET", "/api/events", headers: lastEventID.map { ["Last-Event-ID": String($0)] } ?? [:],
                            host: "127.0.0.1:\(port)")
        #expect(try connection.head().status == 200)
        return connection
    }

    @Test("each event's id is its history sequence; Last-Event-ID replays exactly what was missed, then live", arguments: ConsoleMount.all)
    func idsAndResume(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let key = DefaultsKey<Int>("n", default: 0)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let first: RawHTTPConnection? = try await onOwnThread { try Self.open(port: port) }
            fixture.store[key] = 1
            let opened = try #require(first)
            let event = try #require(try await onOwnThread { try Self.nextFrame(opened) })
            let seq = try #require(event.id)
            await #expect(seq == (try fixture.store.history(for: key, limit: 1).first?.sequence))
            #expect(event.data.contains(#""seq":\#(seq)"#))
            // Three changes commit; a second client comes in naming the last event it saw.
            for value in 2...4 { fixture.store[key] = value }
            let again = try await onOwnThread { try Self.open(port: port, lastEventID: seq) }
            var values: [String] = []
            var ids: [Int64] = []
            for _ in 0..<3 {
                let frame = try #require(try await onOwnThread { try Self.nextFrame(again) })
                ids.append(frame.id ?? -1)
                values.append(frame.data)
            }
            #expect(ids == [seq + 1, seq + 2, seq + 3])
            #expect(values.map { $0.contains(#""value":2"#) || $0.contains(#""value":3"#) || $0.contains(#""value":4"#) } == [true, true, true])
            fixture.store[key] = 5
            let live = try #require(try await onOwnThread { try Self.nextFrame(again) })
            #expect(live.id == seq + 4 && live.data.contains(#""value":5"#))
        }
    }

    /// A live stream (no Last-Event-ID) follows "from now on" and never stops (issue 46, finding
    /// 51): when another process commits more changes in one transaction than the history keeps
    /// (20,000 keys, pruned to the newest 10,000 before it commits, as a store in the importing
    /// process would), the stream says so once (`event: compacted`) and goes on.
    @Test("a live stream behind a 20,000-key import another process pruned is told once, then goes on",
          .requiresSQLiteShell, .timeLimit(.minutes(3)), arguments: ConsoleMount.all)
    func liveStreamFollowsPastAPrunedImport(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let marker = DefaultsKey<Int>("zz.marker", default: 0)
        fixture.store[marker] = 1
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let stream = try await onOwnThread { try Self.open(port: port) }
            _ = try await sqlite3(fixture.path, prunedImportSQL())
            // After the import, from the console's own store. Its change is either an event of
            // its own or inside the compacted range (`newest` at or past it: "reload, everything up
            // to here"), depending on when the stream noticed the burst; either way nothing after
            // it may be missed.
            fixture.store[marker] = 2
            let markerSeq = try fixture.store.version(of: marker.name)
            let frames = try await onOwnThread { () throws -> [(id: Int64?, event: String?, data: String)] in
                var frames: [(id: Int64?, event: String?, data: String)] = []
                let deadline = ContinuousClock.now + .seconds(120)
                while let frame = try Self.nextFrame(stream, deadline: deadline) {
                    frames.append(frame)
                    if frame.data.contains(#""key":"zz.marker""#) { break }
                    if frame.event == "compacted", let newest = frame.id, newest >= markerSeq { break }
                }
                return frames
            }
            let compacted = frames.filter { $0.event == "compacted" }
            #expect(compacted.count == 1, "one notice for the burst: \(frames.count) events, the last \(frames.suffix(3).map { "\($0.event ?? "change") \($0.data.prefix(120))" })")
            #expect(frames.last?.data.contains(#""key":"zz.marker""#) == true || (frames.last?.id ?? 0) >= markerSeq,
                    "the marker neither arrived nor was covered by the notice: \(frames.suffix(3).map { "\($0.event ?? "change") \($0.data.prefix(120))" })")
            // Still following: a later write from another process.
            _ = try await sqlite3(fixture.path, "INSERT INTO defaults(key, value) VALUES ('after.burst', 1);")
            let next = try await onOwnThread { try Self.nextFrame(stream, deadline: .now + .seconds(120)) }
            #expect(next?.data.contains(#""key":"after.burst""#) == true, "\(String(describing: next))")
        }
    }

    @Test("a Last-Event-ID the history no longer keeps gets one compacted event naming the oldest, then live", arguments: ConsoleMount.all)
    func compacted(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let key = DefaultsKey<Int>("n", default: 0)
        try await fixture.store.setHistoryRetention(100)
        for value in 1...1_200 { fixture.store[key] = value }
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let stream = try await onOwnThread { try Self.open(port: port, lastEventID: 1) }
            let frame = try #require(try await onOwnThread { try Self.nextFrame(stream) })
            #expect(frame.event == "compacted")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(frame.data.utf8)) as? [String: Any])
            #expect((object["oldest"] as? Int ?? 0) > 2)
            fixture.store[key] = 0
            let live = try #require(try await onOwnThread { try Self.nextFrame(stream) })
            #expect(live.event == nil && live.data.contains(#""value":0"#))
        }
    }
}
#endif
