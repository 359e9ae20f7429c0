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

@Suite("Console history API", .offThePool)
struct ConsoleHistoryTests {
    /// `timeout` set to 30, then 45, then removed; `other` set to 1: four changes, newest last.
    static func fixtureWithChanges(mount: ConsoleMount) throws -> ConsoleFixture {
        let fixture = try ConsoleFixture(mount: mount)
        try fixture.store.set(.integer(30), for: DefaultsKey<SQLiteValue?>("timeout"))
        try fixture.store.set(.integer(45), for: DefaultsKey<SQLiteValue?>("timeout"))
        try fixture.store.remove(DefaultsKey<SQLiteValue?>("timeout"))
        try fixture.store.set(.text("one"), for: DefaultsKey<SQLiteValue?>("other"))
        return fixture
    }

    /// JSON re-serialized with sorted keys, so two documents compare by content.
    static func canonical(_ json: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("GET /api/history?key=K is an array of prefs history --json's objects, newest first", arguments: ConsoleMount.all)
    func shape(mount: ConsoleMount) async throws {
        let fixture = try Self.fixtureWithChanges(mount: mount)
        let body = try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/history?key=timeout", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                return response.body
            }
        }
        let entries = try #require(parsedJSON(body) as? [[String: Any]])
        try #require(entries.count == 3)
        #expect(entries.map { $0["key"] as? String } == ["timeout", "timeout", "timeout"])
        #expect(entries[0]["value"] is NSNull && entries[1]["value"] as? Int == 45 && entries[2]["value"] as? Int == 30)
        let sequences = entries.compactMap { $0["seq"] as? Int }
        #expect(sequences.count == 3 && sequences == sequences.sorted(by: >))
        #expect(entries.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
        let writer = try #require(entries[0]["writer"] as? [String: Any])
        #expect(writer["kind"] as? String == "library" && writer["pid"] as? Int == Int(getpid()))

        // The same objects as `prefs history KEY --json` prints, by the same encoder.
        let cli = try await runProcess(ServeProcess.executable, ["--db", fixture.path, "history", "timeout", "--json"])
        #expect(cli.status == 0, "\(cli.error)")
        let printed = try JSONSerialization.jsonObject(with: Data(cli.output.utf8))
        #expect(try Self.canonical(entries) == Self.canonical(printed))
    }

    @Test("A declared key's entries carry its type, as prefs history --json prints them", arguments: ConsoleMount.all)
    func declaredType(mount: ConsoleMount) async throws {
        let fixture = try Self.fixtureWithChanges(mount: mount)
        try await fixture.store.declare(DefaultsDeclaration(key: "other", type: .string))
        let body = try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/history", method: .get) { response in
                #expect(response.status == .ok)
                return response.body
            }
        }
        let entries = try #require(parsedJSON(body) as? [[String: Any]])
        #expect(entries.filter { $0["key"] as? String == "other" }.map { $0["type"] as? String } == ["string"])
        #expect(entries.filter { $0["key"] as? String == "timeout" }.allSatisfy { $0["type"] == nil })
    }

    @Test("limit bounds the entries (500 by default, the paging test shows); without key, every key's changes", arguments: ConsoleMount.all)
    func limit(mount: ConsoleMount) async throws {
        let fixture = try Self.fixtureWithChanges(mount: mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/history?key=timeout&limit=2", method: .get) { response in
                let entries = try #require(parsedJSON(response.body) as? [[String: Any]])
                #expect(entries.count == 2 && entries[1]["value"] as? Int == 45)
            }
            try await client.execute(uri: "/api/history?key=timeout&limit=0", method: .get) { response in
                #expect(response.status == .ok && response.body.text == "[]")
            }
            try await client.execute(uri: "/api/history", method: .get) { response in
                let entries = try #require(parsedJSON(response.body) as? [[String: Any]])
                #expect(entries.map { $0["key"] as? String } == ["other", "timeout", "timeout", "timeout"])
            }
            try await client.execute(uri: "/api/history?key=other&key=timeout&limit=3", method: .get) { response in
                let entries = try #require(parsedJSON(response.body) as? [[String: Any]])
                #expect(entries.map { $0["key"] as? String } == ["other", "timeout", "timeout"])
            }
        }
    }

    @Test("A key with no history, or one never written, is an empty array; a percent-encoded key is found", arguments: ConsoleMount.all)
    func unknownKey(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("a b&c=d/+"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/history?key=nope", method: .get) { response in
                #expect(response.status == .ok && response.body.text == "[]")
            }
            try await client.execute(uri: "/api/history?key=" + encodedKey("a b&c=d/+"), method: .get) { response in
                let entries = try #require(parsedJSON(response.body) as? [[String: Any]])
                #expect(entries.count == 1 && entries.first?["key"] as? String == "a b&c=d/+")
            }
        }
    }

    @Test("A bad limit or an empty key gets 400 {\"error\"}", arguments: ConsoleMount.all, [
        "limit=abc", "limit=-1", "limit=1.5", "limit=", "limit=99999999999999999999", "limit=1&limit=2", "key=", "key=timeout&key=",
        "before=0", "before=-3", "before=x", "before=1&before=2", "after=0", "after=x", "after=1&after=2", "after=1&before=1",
    ])
    func badQuery(mount: ConsoleMount, query: String) async throws {
        let fixture = try Self.fixtureWithChanges(mount: mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/history?" + query, method: .get) { response in
                #expect(response.status == .badRequest)
                let json = try #require(parsedJSON(response.body) as? [String: Any])
                #expect((json["error"] as? String)?.isEmpty == false)
            }
        }
    }

    @Test("GET /api/keys and PUT carry each key's last change from the history: time and writer", arguments: ConsoleMount.all)
    func lastChange(mount: ConsoleMount) async throws {
        let fixture = try Self.fixtureWithChanges(mount: mount)
        try await fixture.store.set(.integer(7), for: DefaultsKey<SQLiteValue?>("unchanged.since.load"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys", method: .get) { response in
                let json = try #require(parsedJSON(response.body) as? [String: Any])
                #expect(json["history"] as? Bool == true)
                let keys = try #require(json["keys"] as? [[String: Any]])
                let other = try #require(keys.first { $0["key"] as? String == "other" })
                let changed = try #require(other["changed"] as? [String: Any])
                #expect(changed["value"] as? String == "one" && (changed["time"] as? String)?.hasSuffix("Z") == true)
                #expect((changed["writer"] as? [String: Any])?["kind"] as? String == "library")
            }
            try await client.execute(uri: "/api/keys/other", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": "two"}"#)) { response in
                let entry = try #require(parsedJSON(response.body) as? [String: Any])
                let changed = try #require(entry["changed"] as? [String: Any])
                #expect(changed["value"] as? String == "two" && (changed["writer"] as? [String: Any])?["pid"] as? Int == Int(getpid()))
            }
        }
    }
}
#endif
