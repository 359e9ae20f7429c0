#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Operated by a team, through the binary and HTTP: who and why on every console write,
/// conditional writes (`If-Match`, 412), secrets masked everywhere but an admin's reveal.
@Suite("prefs serve operated by a team: actor and reason, If-Match, secrets", .offThePool, .slowTier)
struct ServeTeamTests {
    typealias Tokens = ServeCommandTokensTests

    /// A console over a fresh file with tokens carol (admin), alice (write), rita (read).
    struct Served {
        let directory: TemporaryDirectory
        let database: String
        let serve: ServeProcess
        let port: Int
        let admin: String, writer: String, reader: String
    }

    static func served(prepare: (DefaultsStore) throws -> Void = { _ in }) async throws -> Served {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/defaults.sqlite"
        let file = directory.path + "/tokens"
        let admin = try await Tokens.add("carol", role: "admin", file: file)
        let writer = try await Tokens.add("alice", role: "write", file: file)
        let reader = try await Tokens.add("rita", role: "read", file: file)
        do {
            let store = try DefaultsStore(path: database)
            try prepare(store)
            try store.close()
        }
        let serve = try ServeProcess(database: database, ["--port", "0", "--tokens", file])
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        return Served(directory: directory, database: database, serve: serve, port: port, admin: admin, writer: writer, reader: reader)
    }

    /// One request with a bearer token and extra headers.
    static func call(_ port: Int, _ method: String, _ path: String, token: String, headers: [String: String] = [:], body: String? = nil) async throws -> RawHTTPConnection.Response {
        var all = headers
        all["Authorization"] = "Bearer " + token
        if body != nil { all["Content-Type"] = "application/json" }
        return try await onOwnThread { try RawHTTPConnection.request(port: port, method, path, headers: all, body: Data((body ?? "").utf8)) }
    }

    static func object(_ response: RawHTTPConnection.Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
    }

    static func array(_ response: RawHTTPConnection.Response) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: response.body)) as? [[String: Any]] ?? []
    }

    /// The entry of `key` in `GET api/keys`.
    static func listed(_ served: Served, _ key: String, token: String) async throws -> [String: Any]? {
        let keys = object(try await call(served.port, "GET", "/api/keys", token: token))["keys"] as? [[String: Any]] ?? []
        return keys.first { $0["key"] as? String == key }
    }

    /// A JSON string literal of `text`.
    static func quoted(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    @Test("A console write records the token's name as actor and the body's reason, in api/history, the event stream and the file's history; a 10 KB reason with newlines and markup round-trips; an oversized or non-string reason is 400 and writes nothing; DELETE takes ?reason=")
    func actorAndReason() async throws {
        let served = try await Self.served()
        let port = served.port
        let stream = try await onOwnThread { () -> RawHTTPConnection in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET", "/api/events", headers: ["Authorization": "Bearer " + served.reader], host: "127.0.0.1:\(port)")
            #expect(try connection.head().status == 200)
            return connection
        }
        let put = try await Self.call(port, "PUT", "/api/keys/timeout", token: served.writer, body: #"{"value": 45, "reason": "INC-4711: upstream is slow"}"#)
        #expect(put.status == 200, "\(put.text)")
        let event = try await onOwnThread { try stream.nextEvent() }
        let parsed = try #require(event.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, "\(event ?? "no event")")
        #expect(parsed["key"] as? String == "timeout" && parsed["actor"] as? String == "alice" && parsed["reason"] as? String == "INC-4711: upstream is slow", "\(parsed)")

        let history = Self.array(try await Self.call(port, "GET", "/api/history?key=timeout", token: served.reader))
        #expect(history.first?["actor"] as? String == "alice" && history.first?["reason"] as? String == "INC-4711: upstream is slow", "\(history)")

        let long = String(repeating: "line <b>bold</b> & \"quoted\"\n", count: 400)
        #expect(long.utf8.count > 10_000)
        let longPut = try await Self.call(port, "PUT", "/api/keys/timeout", token: served.writer, body: #"{"value": 46, "reason": "# + (try Self.quoted(long)) + "}")
        #expect(longPut.status == 200, "\(longPut.text)")
        let longHistory = Self.array(try await Self.call(port, "GET", "/api/history?key=timeout&limit=1", token: served.reader))
        #expect(longHistory.first?["reason"] as? String == long)

        let tooLong = String(repeating: "x", count: 20_000)
        let refused = try await Self.call(port, "PUT", "/api/keys/timeout", token: served.writer, body: #"{"value": 47, "reason": "# + (try Self.quoted(tooLong)) + "}")
        #expect(refused.status == 400 && Self.object(refused)["error"] is String, "\(refused.status) \(refused.text.prefix(200))")
        let notText = try await Self.call(port, "PUT", "/api/keys/timeout", token: served.writer, body: #"{"value": 47, "reason": 42}"#)
        #expect(notText.status == 400, "\(notText.text)")
        #expect(try Tokens.value(served.database, "timeout") == .integer(46), "nothing written by a refused reason")

        let deleted = try await Self.call(port, "DELETE", "/api/keys/timeout?reason=" + encodedKey("cleanup after INC-4711"), token: served.admin)
        #expect(deleted.status == 204, "\(deleted.text)")

        // The file's own history says the same, read through the library.
        let store = try DefaultsStore(path: served.database)
        let entries = try await store.history(keys: ["timeout"], limit: 10)
        #expect(entries.map(\.writer.actor) == ["carol", "alice", "alice"])
        #expect(entries.map(\.writer.reason) == ["cleanup after INC-4711", long, "INC-4711: upstream is slow"])
        try store.close()
        served.serve.send(SIGTERM)
        #expect(await served.serve.exitStatus() == 0)
    }

    @Test("If-Match: the shown seq writes (200, ETag); a stale one is 412 with the current entry and writes nothing; * on an absent key 412; If-None-Match * on a stored key 412; malformed 400; \"0\" creates only while absent")
    func conditionalWrites() async throws {
        let served = try await Self.served { store in
            try store.set(.integer(30), for: DefaultsKey<SQLiteValue?>("timeout"))
        }
        let port = served.port, token = served.writer
        let shown = try #require(try await Self.listed(served, "timeout", token: token))
        let seq = try #require(shown["seq"] as? Int)
        #expect(seq > 0)

        let matching = try await Self.call(port, "PUT", "/api/keys/timeout", token: token, headers: ["If-Match": "\"\(seq)\""], body: #"{"value": 31}"#)
        #expect(matching.status == 200, "\(matching.text)")
        let newSeq = try #require(Self.object(matching)["seq"] as? Int)
        #expect(newSeq > seq && matching.header("ETag") == "\"\(newSeq)\"")

        let stale = try await Self.call(port, "PUT", "/api/keys/timeout", token: token, headers: ["If-Match": "\"\(seq)\""], body: #"{"value": 99}"#)
        #expect(stale.status == 412, "\(stale.text)")
        let current = try #require(Self.object(stale)["current"] as? [String: Any], "\(stale.text)")
        #expect(current["seq"] as? Int == newSeq && current["value"] as? Int == 31, "\(current)")
        #expect((current["changed"] as? [String: Any])?["actor"] as? String == "alice", "who made it: \(current)")
        #expect(Self.object(stale)["error"] is String)
        #expect(try Tokens.value(served.database, "timeout") == .integer(31), "nothing written")
        let staleDelete = try await Self.call(port, "DELETE", "/api/keys/timeout", token: token, headers: ["If-Match": "\"\(seq)\""])
        #expect(staleDelete.status == 412)
        #expect(try Tokens.value(served.database, "timeout") == .integer(31))

        let weak = try await Self.call(port, "PUT", "/api/keys/timeout", token: token, headers: ["If-Match": "W/\"\(newSeq)\""], body: #"{"value": 32}"#)
        #expect(weak.status == 200, "W/ is read as the same version: \(weak.text)")

        let absentStar = try await Self.call(port, "PUT", "/api/keys/fresh", token: token, headers: ["If-Match": "*"], body: #"{"value": 1}"#)
        #expect(absentStar.status == 412 && Self.object(absentStar)["current"] is NSNull, "\(absentStar.text)")
        #expect(try Tokens.value(served.database, "fresh") == nil)
        let existsStar = try await Self.call(port, "PUT", "/api/keys/timeout", token: token, headers: ["If-Match": "*"], body: #"{"value": 33}"#)
        #expect(existsStar.status == 200)
        let noneMatch = try await Self.call(port, "PUT", "/api/keys/timeout", token: token, headers: ["If-None-Match": "*"], body: #"{"value": 34}"#)
        #expect(noneMatch.status == 412)
        #expect(try Tokens.value(served.database, "timeout") == .integer(33))

        for malformed in ["3", "\"x\"", "\"-1\"", "\"1\", \"2\"", "W/", ""] {
            let response = try await Self.call(port, "PUT", "/api/keys/timeout", token: token, headers: ["If-Match": malformed], body: #"{"value": 35}"#)
            #expect(response.status == 400, "If-Match: \(malformed) → \(response.status) \(response.text)")
        }
        let badNone = try await Self.call(port, "PUT", "/api/keys/timeout", token: token, headers: ["If-None-Match": "\"3\""], body: #"{"value": 35}"#)
        #expect(badNone.status == 400)
        #expect(try Tokens.value(served.database, "timeout") == .integer(33))

        let create = try await Self.call(port, "PUT", "/api/keys/fresh", token: token, headers: ["If-Match": "\"0\""], body: #"{"value": 1}"#)
        #expect(create.status == 200, "\(create.text)")
        let again = try await Self.call(port, "PUT", "/api/keys/fresh", token: token, headers: ["If-Match": "\"0\""], body: #"{"value": 2}"#)
        #expect(again.status == 412, "\"0\" creates only while absent")
        let createOnly = try await Self.call(port, "PUT", "/api/keys/other", token: token, headers: ["If-None-Match": "*"], body: #"{"value": 1}"#)
        #expect(createOnly.status == 200)
        #expect(try Tokens.value(served.database, "fresh") == .integer(1) && Tokens.value(served.database, "other") == .integer(1))

        let freshSeq = try #require(try await Self.listed(served, "fresh", token: token)?["seq"] as? Int)
        let delete = try await Self.call(port, "DELETE", "/api/keys/fresh", token: token, headers: ["If-Match": "\"\(freshSeq)\""])
        #expect(delete.status == 204)
        served.serve.send(SIGTERM)
        #expect(await served.serve.exitStatus() == 0)
    }

    @Test("A secret is never in api/keys, api/history, the event stream, the page's assets or stderr; a writer writes it (not echoed back); an admin reveals it (logged: who and which key); read and write tokens get 403")
    func secrets() async throws {
        let first = "sk-FIRSTMARKER-1", second = "sk-SECONDMARKER-2"
        let served = try await Self.served { store in
            try store.declare(DefaultsDeclaration(key: "api.token", type: .string, defaultValue: .text("sk-DEFAULTMARKER"), isSecret: true))
            try store.set(.text(first), for: DefaultsKey<SQLiteValue?>("api.token"))
        }
        let port = served.port
        let markers = [first, second, "FIRSTMARKER", "SECONDMARKER", "DEFAULTMARKER"]
        func clean(_ text: String) -> Bool { !markers.contains { text.contains($0) } }

        let stream = try await onOwnThread { () -> RawHTTPConnection in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET", "/api/events", headers: ["Authorization": "Bearer " + served.admin], host: "127.0.0.1:\(port)")
            #expect(try connection.head().status == 200)
            return connection
        }
        let write = try await Self.call(port, "PUT", "/api/keys/api.token", token: served.writer, body: #"{"value": "\#(second)", "reason": "rotated"}"#)
        #expect(write.status == 200 && clean(write.text), "\(write.status) \(write.text)")
        #expect(Self.object(write)["secret"] as? Bool == true)
        #expect(try await Self.call(port, "PUT", "/api/keys/zz.marker", token: served.writer, body: #"{"value": 1}"#).status == 200)
        // Every event up to the marker's: the secret's says it changed, not to what.
        let events = try await onOwnThread { () -> [String] in
            var seen: [String] = []
            while let event = try stream.nextEvent(timeout: .seconds(60)) {
                seen.append(event)
                if event.contains("zz.marker") { break }
            }
            return seen
        }
        #expect(events.last?.contains("zz.marker") == true, "the marker arrived: \(events)")
        #expect(events.allSatisfy(clean), "\(events)")
        #expect(events.contains { $0.contains(#""key":"api.token""#) && $0.contains(#""secret":true"#) && $0.contains(#""actor":"alice""#) }, "\(events)")

        for token in [served.reader, served.writer, served.admin] {
            let keys = try await Self.call(port, "GET", "/api/keys", token: token)
            #expect(keys.status == 200 && clean(keys.text), "\(keys.text)")
            let entry = try #require(try await Self.listed(served, "api.token", token: token))
            #expect(entry["secret"] as? Bool == true && entry["value"] is NSNull && entry["default"] is NSNull, "\(entry)")
            let history = try await Self.call(port, "GET", "/api/history?key=api.token", token: token)
            #expect(history.status == 200 && clean(history.text), "\(history.text)")
            let entries = Self.array(history)
            #expect(entries.count == 2 && entries.allSatisfy { $0["secret"] as? Bool == true && $0["value"] is NSNull }, "\(entries)")
            // The digest only for who may read or write the key (alice writes every key here).
            #expect((entries.first?["digest"] is String) == (token != served.reader) && entries.first?["actor"] as? String == "alice")
            let all = try await Self.call(port, "GET", "/api/history", token: token)
            #expect(clean(all.text))
        }
        for asset in ["/", "/console.js", "/console.css", "/api/session"] {
            #expect(clean(try await Self.call(port, "GET", asset, token: served.admin).text), "\(asset)")
        }
        for token in [served.reader, served.writer] {
            let refused = try await Self.call(port, "GET", "/api/keys/api.token/secret", token: token)
            #expect(refused.status == 403 && clean(refused.text), "\(refused.status) \(refused.text)")
        }
        let revealed = try await Self.call(port, "GET", "/api/keys/api.token/secret", token: served.admin)
        #expect(revealed.status == 200 && Self.object(revealed)["value"] as? String == second, "\(revealed.text)")
        let byQuery = try await Self.call(port, "GET", "/api/secret?key=api.token", token: served.admin)
        #expect(Self.object(byQuery)["text"] as? String == second)
        #expect(try await Self.call(port, "GET", "/api/keys/zz.marker/secret", token: served.admin).status == 404, "not a secret")
        #expect(await served.serve.errorLines.waitAsync(timeout: .seconds(30)) { $0.contains { $0.contains("carol") && $0.contains("api.token") } },
                "the reveal is logged: \(served.serve.errorLines.all)")
        #expect(try Tokens.value(served.database, "api.token") == .text(second))
        served.serve.send(SIGTERM)
        #expect(await served.serve.exitStatus() == 0)
        #expect(served.serve.errorLines.all.allSatisfy(clean), "\(served.serve.errorLines.all)")
        #expect(served.serve.lines.all.allSatisfy(clean))
    }
}
#endif
