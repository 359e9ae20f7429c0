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

/// Roles and prefixes in the console's middleware and routes, in process.
@Suite("Console security: roles and key prefixes", .offThePool)
struct ConsoleSecurityRolesTests {
    static let admin = ConsoleTokens.newToken(), reader = ConsoleTokens.newToken()
    static let dotted = ConsoleTokens.newToken(), bare = ConsoleTokens.newToken(), anyKey = ConsoleTokens.newToken()

    static func fixture(mount: ConsoleMount) throws -> ConsoleFixture {
        let tokens = try ConsoleTokens(entries: [
            .init(name: "carol", role: .admin, token: admin),
            .init(name: "bob", role: .read, token: reader),
            .init(name: "alice", role: .write, prefixes: ["feature."], token: dotted),
            .init(name: "dave", role: .write, prefixes: ["feature"], token: bare),
            .init(name: "erin", role: .write, token: anyKey),
        ])
        let fixture = try ConsoleFixture(mount: mount, configuration: .init(tokens: tokens, allowedHosts: ["127.0.0.1"]))
        for key in ["feature.x", "featureless", "other"] { try fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>(key)) }
        return fixture
    }

    static func headers(_ token: String?, json: Bool = false) -> HTTPFields {
        var headers: HTTPFields = [HTTPField.Name("Host")!: "127.0.0.1:8765"]
        if let token { headers[.authorization] = "Bearer " + token }
        if json { headers[.contentType] = "application/json" }
        return headers
    }

    /// The status of `PUT api/keys/KEY` with `{"value": 2}`.
    static func put(_ client: ConsoleTestClient, _ token: String, _ uri: String) async throws -> HTTPResponse.Status {
        try await client.execute(uri: uri, method: .put, headers: headers(token, json: true), body: ByteBuffer(string: #"{"value": 2}"#)) { $0.status }
    }

    @Test("read: the page, every GET and the session answer; PUT and DELETE are 403 and write nothing", arguments: ConsoleMount.all)
    func readRole(mount: ConsoleMount) async throws {
        let fixture = try Self.fixture(mount: mount)
        try await fixture.test(.router) { client in
            for uri in ["/", "/console.js", "/api/keys", "/api/history?key=other", "/api/session"] {
                try await client.execute(uri: uri, method: .get, headers: Self.headers(Self.reader)) { #expect($0.status == .ok, "\(uri)") }
            }
            try await client.execute(uri: "/api/session", method: .get, headers: Self.headers(Self.reader)) {
                #expect($0.body.text == #"{"name":"bob","role":"read","prefixes":[]}"#)
            }
            for uri in ["/api/keys/other", "/api/keys?key=feature.x", "/api/keys/new"] {
                #expect(try await Self.put(client, Self.reader, uri) == .forbidden, "\(uri)")
                try await client.execute(uri: uri, method: .delete, headers: Self.headers(Self.reader)) { response in
                    #expect(response.status == .forbidden, "\(uri)")
                    #expect((parsedJSON(response.body) as? [String: Any])?["error"] is String)
                }
            }
            try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers(Self.reader)) { response in
                let keys = (parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]] ?? []
                #expect(keys.count == 3 && keys.allSatisfy { $0["writable"] as? Bool == false })
            }
        }
        for key in ["feature.x", "featureless", "other"] { #expect(try fixture.stored(key) == .integer(1)) }
        #expect(try fixture.stored("new") == nil)
    }

    @Test("write with prefix 'feature.': feature.x yes; featureless and other 403, by path, ?key= or ?keyHex=, and nothing written", arguments: ConsoleMount.all)
    func dottedPrefix(mount: ConsoleMount) async throws {
        let fixture = try Self.fixture(mount: mount)
        try await fixture.test(.router) { client in
            #expect(try await Self.put(client, Self.dotted, "/api/keys/feature.x") == .ok)
            #expect(try await Self.put(client, Self.dotted, "/api/keys?key=feature.new") == .ok)
            for uri in ["/api/keys/featureless", "/api/keys/other", "/api/keys?key=other", "/api/keys?keyHex=" + Data("other".utf8).map { String(format: "%02x", $0) }.joined(),
                        "/api/keys/" + encodedKey("feature"), "/api/keys/%66eatureless"] {
                #expect(try await Self.put(client, Self.dotted, uri) == .forbidden, "\(uri)")
                try await client.execute(uri: uri, method: .delete, headers: Self.headers(Self.dotted)) { #expect($0.status == .forbidden, "\(uri)") }
            }
            try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers(Self.dotted)) { response in
                let keys = (parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]] ?? []
                let writable = Dictionary(uniqueKeysWithValues: keys.map { ($0["key"] as? String ?? "", $0["writable"] as? Bool) })
                #expect(writable == ["feature.x": true, "feature.new": true, "featureless": false, "other": false], "\(writable)")
            }
            try await client.execute(uri: "/api/session", method: .get, headers: Self.headers(Self.dotted)) {
                #expect($0.body.text == #"{"name":"alice","role":"write","prefixes":["feature."]}"#)
            }
            try await client.execute(uri: "/api/keys/feature.x", method: .delete, headers: Self.headers(Self.dotted)) { #expect($0.status == .noContent) }
        }
        #expect(try fixture.stored("feature.x") == nil && fixture.stored("feature.new") == .integer(2))
        #expect(try fixture.stored("featureless") == .integer(1) && fixture.stored("other") == .integer(1) && fixture.stored("feature") == nil)
    }

    @Test("write with prefix 'feature' (no dot) matches featureless too; a writer without prefixes writes every key; admin everything", arguments: ConsoleMount.all)
    func barePrefixAndAdmin(mount: ConsoleMount) async throws {
        let fixture = try Self.fixture(mount: mount)
        try await fixture.test(.router) { client in
            #expect(try await Self.put(client, Self.bare, "/api/keys/featureless") == .ok)
            #expect(try await Self.put(client, Self.bare, "/api/keys/other") == .forbidden)
            #expect(try await Self.put(client, Self.anyKey, "/api/keys/other") == .ok)
            #expect(try await Self.put(client, Self.admin, "/api/keys/new") == .ok)
            try await client.execute(uri: "/api/keys/featureless", method: .delete, headers: Self.headers(Self.admin)) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/keys?key=wrong", method: .get, headers: Self.headers("sqd_" + String(repeating: "0", count: 32))) {
                #expect($0.status == .unauthorized)
            }
        }
        #expect(try fixture.stored("other") == .integer(2) && fixture.stored("new") == .integer(2) && fixture.stored("featureless") == nil)
    }

    @Test("A session opened with ?token= is bound to its token's role: a read token's cookie cannot write", arguments: ConsoleMount.all)
    func sessionKeepsTheRole(mount: ConsoleMount) async throws {
        let fixture = try Self.fixture(mount: mount)
        try await fixture.test(.router) { client in
            let cookie = try await client.execute(uri: "/?token=" + Self.reader, method: .get, headers: Self.headers(nil)) {
                String(try #require($0.headers[.setCookie]).split(separator: ";")[0])
            }
            var headers = Self.headers(nil, json: true)
            headers[.cookie] = cookie
            try await client.execute(uri: "/api/session", method: .get, headers: headers) { #expect($0.body.text.contains(#""name":"bob""#)) }
            try await client.execute(uri: "/api/keys/other", method: .put, headers: headers, body: ByteBuffer(string: #"{"value": 9}"#)) {
                #expect($0.status == .forbidden)
            }
        }
        #expect(try fixture.stored("other") == .integer(1))
    }

    @Test("Without a token the request is the owner's (api/session names no one); an app's middleware can set a read-only principal")
    func ownerAndAppPrincipal() async throws {
        let owner = try ConsoleFixture()
        try await owner.app.test(.router) { client in
            try await client.execute(uri: "/api/session", method: .get) { #expect($0.body.text == #"{"prefixes":[]}"#) }
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": 1}"#)) { #expect($0.status == .ok) }
        }

        struct Viewer<Context: RequestContext>: RouterMiddleware {
            func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
                try await ConsolePrincipal.$current.withValue(ConsolePrincipal(name: "viewer", role: .read)) { try await next(request, context) }
            }
        }
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.path + "/defaults.sqlite")
        defer { try? store.close() }
        let router = Router()
        DefaultsConsole(store: store).addRoutes(to: router.group("admin").add(middleware: Viewer()))
        let app = Application(router: router)
        try await app.test(.router) { client in
            try await client.execute(uri: "/admin/api/session", method: .get) { #expect($0.body.text == #"{"name":"viewer","role":"read","prefixes":[]}"#) }
            try await client.execute(uri: "/admin/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": 1}"#)) {
                #expect($0.status == .forbidden)
            }
        }
        #expect(try store.value(for: DefaultsKey<SQLiteValue?>("k")) == nil)
    }

    @Test("Configuration.token still works alone, as an admin named 'token'", arguments: ConsoleMount.all)
    func singleToken(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount, configuration: .init(token: "s3cret", allowedHosts: ["127.0.0.1"]))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/session", method: .get, headers: Self.headers("s3cret")) {
                #expect($0.body.text == #"{"name":"token","role":"admin","prefixes":[]}"#)
            }
            #expect(try await Self.put(client, "s3cret", "/api/keys/k") == .ok)
            #expect(try await Self.put(client, "wrong", "/api/keys/k") == .unauthorized)
        }
    }
}
#endif
