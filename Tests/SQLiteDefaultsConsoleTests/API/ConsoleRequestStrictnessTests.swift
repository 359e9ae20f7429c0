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

/// Requests that say one thing in a form that could be read two ways are refused (400) and
/// change nothing: a signed or padded version in `If-Match`, a member given twice in a body, a
/// query item that does not percent-decode to UTF-8.
@Suite("Console requests read one way only", .offThePool)
struct ConsoleRequestStrictnessTests {
    static func ifMatch(_ tag: String) -> HTTPFields {
        jsonHeaders(extra: [HTTPField.Name("If-Match")!: tag])
    }

    @Test("If-Match takes the version exactly as the ETag says it: \"+5\", \"05\", \" 5\", \"5 \", \"-0\" and an overflow are 400, nothing written",
          arguments: ConsoleMount.all)
    func ifMatchIsExact(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.router) { client in
            let version = try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(),
                                                   body: ByteBuffer(string: #"{"value": 1}"#)) { response in
                #expect(response.status == .ok)
                return try #require(response.headers[.eTag])
            }
            let number = version.dropFirst().dropLast()
            for tag in ["\"+\(number)\"", "\"0\(number)\"", "\" \(number)\"", "\"\(number) \"", "\"-0\"", "\"+0\"", "\"99999999999999999999\"",
                        "W/\"+\(number)\""] {
                try await client.execute(uri: "/api/keys/k", method: .put, headers: Self.ifMatch(tag),
                                         body: ByteBuffer(string: #"{"value": 2}"#)) { response in
                    #expect(response.status == .badRequest, "\(tag): \(response.status) \(response.body.text)")
                }
                try await client.execute(uri: "/api/keys/k", method: .delete, headers: Self.ifMatch(tag)) { response in
                    #expect(response.status == .badRequest, "DELETE \(tag): \(response.status)")
                }
            }
            #expect(try fixture.stored("k") == .integer(1))
            try await client.execute(uri: "/api/keys/k", method: .put, headers: Self.ifMatch(version),
                                     body: ByteBuffer(string: #"{"value": 3}"#)) { #expect($0.status == .ok, "the ETag as sent still writes") }
        }
        #expect(try fixture.stored("k") == .integer(3))
    }

    @Test("A body that gives \"value\", \"type\" or \"reason\" twice is 400, nothing written (as the import reader refuses a key named twice)",
          arguments: ConsoleMount.all)
    func duplicateMembers(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.router) { client in
            for body in [#"{"value": 1, "value": 2}"#, #"{"value": "1", "type": "int", "type": "string"}"#,
                         #"{"value": 1, "reason": "a", "reason": "b"}"#, #"{"value": 1, "type": null, "type": "int"}"#,
                         #"{"value": 1, "v\u0061lue": 2}"#] {
                try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body): \(response.status)")
                    #expect(response.body.text.contains("twice"), "\(body): \(response.body.text)")
                }
            }
            // A value's own members are the value's business: a JSON object is stored as its text.
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": 5}"#)) { #expect($0.status == .ok) }
        }
        #expect(try fixture.stored("k") == .integer(5))
        #expect(try await fixture.store.history(keys: ["k"], limit: 10).count == 1)
    }

    @Test("A \\u escape that leaves a surrogate unpaired: JSON (the package's one grammar), kept as written inside an array; as a string value or a member name, 400 by name, nothing written",
          arguments: ConsoleMount.all)
    func loneSurrogates(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.router) { client in
            for body in [#"{"value": "\ud800"}"#, #"{"value": "\ud800", "type": "json"}"#, #"{"v\udc00": 1}"#] {
                try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body): \(response.status)")
                    #expect(response.body.text.contains("surrogate"), "\(body): \(response.body.text)")
                }
            }
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": ["\ud800", 1], "type": "json"}"#)) { #expect($0.status == .ok) }
        }
        #expect(try fixture.stored("k") == .text(#"["\ud800", 1]"#))
        #expect(try await fixture.store.history(keys: ["k"], limit: 10).count == 1)
    }

    @Test("A query item that is not percent-encoded UTF-8 is 400 on every route that reads one, nothing written: ?key=a.%FF names no key called \"a.%FF\"",
          arguments: ConsoleMount.all)
    func undecodableQuery(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("a.%FF"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys?key=a.%FF", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": 2}"#)) { response in
                #expect(response.status == .badRequest, "\(response.status) \(response.body.text)")
                #expect(response.body.text.contains("keyHex"), "says how to name a key that is not UTF-8: \(response.body.text)")
            }
            var refused: [(String, HTTPRequest.Method)] = [("/api/keys?key=b.%FF", .put), ("/api/keys?key=a.%FF", .delete),
                                                           ("/api/keys/k?reason=%FF", .delete), ("/api/history?key=a.%FF", .get),
                                                           ("/api/secret?key=%C3", .get)]
            // Vapor's URI parser re-encodes a `%` without two hex digits as `%25` before the
            // console sees the query (it reads "a.%2" literally, as Vapor means it).
            if mount == .hummingbird { refused.append(("/api/keys?key=a.%2", .delete)) }
            for (uri, method) in refused {
                try await client.execute(uri: uri, method: method, headers: jsonHeaders(),
                                         body: method == .put ? ByteBuffer(string: #"{"value": 2}"#) : nil) { response in
                    #expect(response.status == .badRequest, "\(method) \(uri): \(response.status) \(response.body.text)")
                }
            }
            for query in ["limit=+5", "limit=%2B5", "before=+5", "before=%205", "limit=-0"] {
                try await client.execute(uri: "/api/history?" + query, method: .get) { response in
                    #expect(response.status == .badRequest, "\(query): \(response.status)")
                }
            }
            // The key whose name is those three characters is still reachable, percent-encoded.
            try await client.execute(uri: "/api/keys?key=a.%25FF", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": 3}"#)) { #expect($0.status == .ok) }
            // And a key that is not UTF-8 by its bytes.
            try await client.execute(uri: "/api/keys?keyHex=612EFF", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": 4}"#)) { #expect($0.status == .notFound, "such a key is changed, never created") }
        }
        #expect(try fixture.stored("a.%FF") == .integer(3))
        #expect(try fixture.stored("b.%FF") == nil)
        #expect(try fixture.stored("k") == nil)
    }
}
#endif
