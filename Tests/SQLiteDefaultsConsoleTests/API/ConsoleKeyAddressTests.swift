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

@Suite("Console key addressing", .offThePool)
struct ConsoleKeyAddressTests {
    static let awkwardKeys = [".", "..", "/", "a/b", "%", "100%25", "ends.", "?", "#", "a?b#c", "x&key=y", "+ +", "ключ"]

    /// `text` percent-encoded for a query value, as `encodeURIComponent` does.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    @Test("api/keys?key= names any key, as it is: PUT writes it, DELETE removes it", arguments: ConsoleMount.all)
    func queryForm(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.router) { client in
            for key in Self.awkwardKeys {
                try await client.execute(uri: "/api/keys?key=" + Self.queryValue(key), method: .put, headers: jsonHeaders(),
                                         body: ByteBuffer(string: #"{"value": "v"}"#)) { response in
                    #expect(response.status == .ok, "\(key): \(response.body.text)")
                    #expect((parsedJSON(response.body) as? [String: Any])?["key"] as? String == key)
                }
            }
        }
        #expect(Set(try await fixture.store.keys()) == Set(Self.awkwardKeys))
        try await fixture.test(.router) { client in
            for key in Self.awkwardKeys {
                try await client.execute(uri: "/api/keys?key=" + Self.queryValue(key), method: .delete) { response in
                    #expect(response.status == .noContent, "\(key): \(response.body.text)")
                }
            }
        }
        #expect(try await fixture.store.keys().isEmpty)
    }

    @Test("api/keys?keyHex= names a key by its bytes; a request naming no key, or two, is 400", arguments: ConsoleMount.all)
    func hexForm(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>(".."))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys?keyHex=2E2e", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": 2}"#)) {
                #expect($0.status == .ok)
            }
            for bad in ["/api/keys", "/api/keys?key=", "/api/keys?keyHex=2", "/api/keys?keyHex=zz", "/api/keys?key=a&keyHex=61"] {
                try await client.execute(uri: bad, method: .delete) { #expect($0.status == .badRequest, "\(bad)") }
            }
        }
        #expect(try fixture.stored("..") == .integer(2))
    }

    @Test("A key that is not UTF-8 is listed by its escaped address and keyHex; PUT and DELETE by that address act on that row only", .requiresSQLiteShell, arguments: ConsoleMount.all)
    func invalidUTF8Key(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.text("seed"), for: DefaultsKey<SQLiteValue?>("seed"))
        try await sqlite3(fixture.path, "INSERT INTO defaults(key, value) VALUES (CAST(x'ff6b6579' AS TEXT), 'v')")
        let path = fixture.path
        let count: @Sendable () async throws -> String = { try await sqlite3(path, "SELECT count(*) FROM defaults WHERE key = CAST(x'ff6b6579' AS TEXT)") }
        try await fixture.test(.router) { client in
            let listed = try await client.execute(uri: "/api/keys", method: .get) { response in
                let keys = try #require((parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]])
                return try #require(keys.first { $0["key"] as? String != "seed" })
            }
            #expect(listed["key"] as? String == #"\x{FF}key"# && listed["keyHex"] as? String == "ff6b6579" && listed["text"] as? String == "v")
            let uri = "/api/keys/" + encodedKey(#"\x{FF}key"#)
            try await client.execute(uri: uri, method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": "edited"}"#)) { response in
                #expect(response.status == .ok, "\(response.body.text)")
                #expect((parsedJSON(response.body) as? [String: Any])?["keyHex"] as? String == "ff6b6579")
            }
            #expect(try await sqlite3(fixture.path, "SELECT value FROM defaults WHERE key = CAST(x'ff6b6579' AS TEXT)") == "edited")
            #expect(try await sqlite3(fixture.path, "SELECT count(*) FROM defaults") == "2", "no second key")
            try await client.execute(uri: uri, method: .delete) { #expect($0.status == .noContent) }
            #expect(try await count() == "0")
            // Gone: neither a DELETE nor a PUT says it changed anything, and nothing is created.
            try await client.execute(uri: uri, method: .delete) { #expect($0.status == .notFound) }
            try await client.execute(uri: uri, method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": "again"}"#)) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/api/keys?keyHex=ff6b6579", method: .delete) { #expect($0.status == .notFound) }
        }
        #expect(try await count() == "0")
        #expect(try await fixture.store.keys() == ["seed"])
    }

    @Test("A declared bool reads true/false in text and defaultText", arguments: ConsoleMount.all)
    func declaredBoolText(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.declare(DefaultsDeclaration(key: "verbose", type: .bool, defaultValue: .integer(0)))
        try await fixture.store.declare(DefaultsDeclaration(key: "dark", type: .bool, defaultValue: .integer(1)))
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("verbose"))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys", method: .get) { response in
                let keys = try #require((parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]])
                let verbose = try #require(keys.first { $0["key"] as? String == "verbose" })
                let dark = try #require(keys.first { $0["key"] as? String == "dark" })
                #expect(verbose["text"] as? String == "true" && verbose["defaultText"] as? String == "false" && verbose["value"] as? Int == 1)
                #expect(dark["text"] is NSNull && dark["defaultText"] as? String == "true")
            }
        }
    }
}
#endif
