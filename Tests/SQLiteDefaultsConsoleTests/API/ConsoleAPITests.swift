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

@Suite("Console JSON API", .offThePool)
struct ConsoleAPITests {
    @Test("GET /api/keys lists every stored key with its value, text, type and storage class", arguments: ConsoleMount.all)
    func listsKeys(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(42), for: DefaultsKey<SQLiteValue?>("count"))
        try await fixture.store.set(.real(2.0), for: DefaultsKey<SQLiteValue?>("ratio"))
        try await fixture.store.set(.text("Ada"), for: DefaultsKey<SQLiteValue?>("name"))
        try await fixture.store.set(.blob(Data([0xDE, 0xAD])), for: DefaultsKey<SQLiteValue?>("raw"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let json = try #require(parsedJSON(response.body) as? [String: Any])
                let keys = try #require(json["keys"] as? [[String: Any]])
                #expect(keys.map { $0["key"] as? String } == ["count", "name", "ratio", "raw"])
                #expect(keys[0]["value"] as? Int == 42 && keys[0]["type"] as? String == "int" && keys[0]["storage"] as? String == "integer")
                #expect(keys[0]["declared"] as? Bool == false)
                #expect(keys[1]["text"] as? String == "Ada" && keys[1]["type"] as? String == "string")
                #expect(keys[2]["text"] as? String == "2.0" && keys[2]["type"] as? String == "double")
                #expect((keys[3]["value"] as? [String: String])?["$data"] == "3q0=" && keys[3]["text"] as? String == "3q0=")
                #expect(keys[3]["type"] as? String == "data")
                #expect(json["history"] as? Bool == true)
            }
        }
    }

    /// "é" as one code point and "e" + U+0301 are two rows; keyed by `String`, the listing gave
    /// one's declaration (and version) to the other.
    @Test("GET /api/keys keeps canonically equivalent keys apart: each its own declaration and version", arguments: ConsoleMount.all)
    func canonicallyEquivalentKeys(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let composed = "\u{E9}", decomposed = "e\u{301}"
        try await fixture.store.declare(DefaultsDeclaration(key: composed, type: .int))
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>(composed))
        try await fixture.store.set(.text("x"), for: DefaultsKey<SQLiteValue?>(decomposed))
        try await fixture.store.set(.text("y"), for: DefaultsKey<SQLiteValue?>(decomposed))
        let versions = (try fixture.store.version(of: composed), try fixture.store.version(of: decomposed))
        #expect(versions.0 != versions.1)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys", method: .get) { response in
                let json = try #require(parsedJSON(response.body) as? [String: Any])
                let keys = try #require(json["keys"] as? [[String: Any]])
                func entry(_ key: String) -> [String: Any]? {
                    keys.first { ($0["key"] as? String)?.utf8.elementsEqual(key.utf8) == true }
                }
                let first = try #require(entry(composed)), second = try #require(entry(decomposed))
                #expect(keys.count == 2)
                #expect(first["declared"] as? Bool == true && first["type"] as? String == "int" && first["value"] as? Int == 1)
                #expect(second["declared"] as? Bool == false && second["type"] as? String == "string" && second["text"] as? String == "y")
                #expect(first["seq"] as? Int == Int(versions.0) && second["seq"] as? Int == Int(versions.1))
            }
        }
    }

    @Test("PUT stores an undeclared key's value by its JSON kind", arguments: ConsoleMount.all, [
        (#"{"value": 7}"#, SQLiteValue.integer(7)),
        (#"{"value": 2.5}"#, .real(2.5)),
        (#"{"value": 2.0}"#, .real(2.0)),
        (#"{"value": "hello"}"#, .text("hello")),
        (#"{"value": true}"#, .integer(1)),
        (#"{"value": false}"#, .integer(0)),
        (#"{"value": [1, 2]}"#, .text("[1, 2]")),
        (#"{"value": {"a": 1}}"#, .text(#"{"a": 1}"#)),
        (#"{"value": {"$data": "AAEC"}}"#, .blob(Data([0, 1, 2]))),
    ])
    func putByJSONKind(mount: ConsoleMount, pair: (String, SQLiteValue)) async throws {
        let (body, expected) = pair
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok, "\(response.body.text)")
                let entry = try #require(parsedJSON(response.body) as? [String: Any])
                #expect(entry["key"] as? String == "k")
            }
        }
        #expect(try fixture.stored("k") == expected)
    }

    @Test("PUT with a type parses the value as `prefs write --type` does", arguments: ConsoleMount.all)
    func putWithType(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.router) { client in
            for (body, key) in [(#"{"value": "42", "type": "int"}"#, "i"), (#"{"value": "yes", "type": "bool"}"#, "b"),
                                (#"{"value": "[1,2]", "type": "json"}"#, "j"), (#"{"value": "AAE=", "type": "data"}"#, "d")] {
                try await client.execute(uri: "/api/keys/\(key)", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .ok, "\(response.body.text)")
                }
            }
        }
        #expect(try fixture.stored("i") == .integer(42))
        #expect(try fixture.stored("b") == .integer(1))
        #expect(try fixture.stored("j") == .text("[1,2]"))
        #expect(try fixture.stored("d") == .blob(Data([0, 1])))
    }

    @Test("A refused value gets 400 with {\"error\"} and writes nothing", arguments: ConsoleMount.all, [
        #"{"value": "abc", "type": "int"}"#,
        #"{"value": "{not json", "type": "json"}"#,
        #"{"value": "x", "type": "colour"}"#,
        #"{"value": null}"#,
        #"{"other": 1}"#,
        #"{"value": 1, "extra": 2}"#,
        #"[1]"#,
        #"not json"#,
        #"{"value": 1e999}"#,
        #"{"value": 99999999999999999999}"#,
    ])
    func refusals(mount: ConsoleMount, body: String) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(5), for: DefaultsKey<SQLiteValue?>("k"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: body)) { response in
                #expect(response.status == .badRequest)
                let error = (parsedJSON(response.body) as? [String: Any])?["error"] as? String
                #expect(error?.isEmpty == false)
            }
        }
        #expect(try fixture.stored("k") == .integer(5))
    }

    @Test("Keys in paths are percent-encoded: slashes, dots, spaces, Unicode and markup round-trip", arguments: ConsoleMount.all)
    func percentEncodedKeys(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let keys = ["a/b c", "..", "app.timeout", "ключ 🔑", "<img src=x onerror=alert(1)>", "100%"]
        try await fixture.test(.router) { client in
            for key in keys {
                try await client.execute(uri: "/api/keys/" + encodedKey(key), method: .put, headers: jsonHeaders(),
                                         body: ByteBuffer(string: #"{"value": "v"}"#)) { response in
                    #expect(response.status == .ok, "\(key): \(response.body.text)")
                    #expect((parsedJSON(response.body) as? [String: Any])?["key"] as? String == key)
                }
            }
        }
        #expect(Set(try await fixture.store.keys()) == Set(keys))
        try await fixture.test(.router) { client in
            for key in keys {
                try await client.execute(uri: "/api/keys/" + encodedKey(key), method: .delete) { response in
                    #expect(response.status == .noContent)
                }
            }
        }
        #expect(try await fixture.store.keys().isEmpty)
    }

    @Test("DELETE removes the key (204); deleting a missing key changes nothing and is 404 {\"error\"}", arguments: ConsoleMount.all)
    func delete(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.text("x"), for: DefaultsKey<SQLiteValue?>("k"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/keys/k", method: .delete) { response in
                #expect(response.status == .notFound)
                #expect(((parsedJSON(response.body) as? [String: Any])?["error"] as? String)?.contains("'k'") == true)
            }
        }
        #expect(try fixture.stored("k") == nil)
    }

    @Test("A 1 MB value and binary values go through the API unchanged", arguments: ConsoleMount.all)
    func largeAndBinaryValues(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let big = String(repeating: "x", count: 1_000_000)
        var bytes = [UInt8](repeating: 0, count: 300_000)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
        let data = Data(bytes)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/big", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": ""# + big + #""}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/keys/bin", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": {"$data": ""# + data.base64EncodedString() + #""}}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/keys", method: .get) { response in
                let keys = try #require((parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]])
                #expect((keys.first { $0["key"] as? String == "big" }?["text"] as? String)?.count == 1_000_000)
            }
        }
        #expect(try fixture.stored("big") == .text(big))
        #expect(try fixture.stored("bin") == .blob(data))
    }

    @Test("The page, script and style are served from the binary; the page has the hooks' script and no inline script", arguments: ConsoleMount.all)
    func pageAndAssets(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                let html = response.body.text
                #expect(html.contains(#"<script src="console.js" defer></script>"#))
                #expect(!html.contains("<script>") && !html.contains("onclick"))
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
            }
            try await client.execute(uri: "/console.js", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/javascript") == true)
                let script = response.body.text
                #expect(script.contains("data-role") && !script.contains("innerHTML"))
            }
            try await client.execute(uri: "/console.css", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("Mounted under a prefix: the page redirects to its trailing slash, the API answers below it", arguments: ConsoleMount.all)
    func mountedUnderPrefix(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount, prefix: "admin/prefs")
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("flag"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/admin/prefs", method: .get) { response in
                #expect(response.status == .movedPermanently && response.headers[.location] == "/admin/prefs/")
            }
            try await client.execute(uri: "/admin/prefs/", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/admin/prefs/api/keys", method: .get) { response in
                #expect(response.body.text.contains(#""key":"flag""#) == true)
            }
            try await client.execute(uri: "/api/keys", method: .get) { #expect($0.status == .notFound) }
        }
    }
}

@Suite("Console edges", .offThePool)
struct ConsoleEdgeTests {
    @Test("The database replaced underneath: writes get 503 naming the replacement, and neither file changes", arguments: ConsoleMount.all)
    func databaseReplaced(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("k"))
        let replacement = fixture.directory.path + "/other.sqlite"
        let other = try DefaultsStore(path: replacement)
        try await other.set(.integer(2), for: DefaultsKey<SQLiteValue?>("k"))
        try other.close()
        #expect(rename(replacement, fixture.path) == 0)
        #expect(await waitUntil {
            (try? fixture.store.set(.integer(3), for: DefaultsKey<SQLiteValue?>("probe"))) == nil
        })
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": 9}"#)) { response in
                #expect(response.status == .serviceUnavailable)
                let error = (parsedJSON(response.body) as? [String: Any])?["error"] as? String ?? ""
                #expect(error.contains("replaced"), "\(error)")
            }
        }
        // Once the console's store lets go of the old file's -wal, the new file reads as it was.
        try fixture.store.close()
        #expect(try fixture.stored("k") == .integer(2))
        #expect(try fixture.stored("probe") == nil)
    }
}

@Suite("Console and declared keys", .offThePool)
struct ConsoleDeclaredKeyTests {
    static func declaredFixture(mount: ConsoleMount) throws -> ConsoleFixture {
        let fixture = try ConsoleFixture(mount: mount)
        try fixture.store.declare(DefaultsKey<Int>("timeout", default: 30, summary: "Request timeout, in seconds"))
        try fixture.store.declare(DefaultsDeclaration(key: "mode", type: .string, defaultValue: .text("fast"), allowedValues: ["fast", "safe"]))
        return fixture
    }

    @Test("An unset declared key is listed with its type, default and summary; value null", arguments: ConsoleMount.all)
    func listsDeclared(mount: ConsoleMount) async throws {
        let fixture = try Self.declaredFixture(mount: mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys", method: .get) { response in
                let keys = try #require((parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]])
                let timeout = try #require(keys.first { $0["key"] as? String == "timeout" })
                #expect(timeout["declared"] as? Bool == true && timeout["type"] as? String == "int")
                #expect(timeout["default"] as? Int == 30 && timeout["summary"] as? String == "Request timeout, in seconds")
                #expect(timeout["value"] is NSNull)
                let mode = try #require(keys.first { $0["key"] as? String == "mode" })
                #expect(mode["allowed"] as? [String] == ["fast", "safe"])
            }
        }
    }

    @Test("A declared key parses by its declared type; a misfit, a value outside the allowed ones, or another type is 400 and writes nothing", arguments: ConsoleMount.all)
    func declaredRefusals(mount: ConsoleMount) async throws {
        let fixture = try Self.declaredFixture(mount: mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/timeout", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": "45"}"#)) {
                #expect($0.status == .ok)
            }
            for (key, body) in [("timeout", #"{"value": "abc"}"#), ("timeout", #"{"value": 2.5}"#), ("timeout", #"{"value": "1", "type": "string"}"#),
                                ("mode", #"{"value": "reckless"}"#)] {
                try await client.execute(uri: "/api/keys/\(key)", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(key) \(body)")
                    let error = (parsedJSON(response.body) as? [String: Any])?["error"] as? String ?? ""
                    #expect(error.contains(key), "\(error)")
                }
            }
        }
        #expect(try fixture.stored("timeout") == .integer(45))
        #expect(try fixture.stored("mode") == nil)
    }
}
#endif
