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

@Suite("Console security rules", .offThePool)
struct ConsoleSecurityTests {
    static let token = "t0ken-with spaces&symbols"
    static let host = "127.0.0.1:8765"

    static func secured(mount: ConsoleMount, prefix: String = "") throws -> ConsoleFixture {
        try ConsoleFixture(mount: mount, configuration: .init(token: token, allowedHosts: ["127.0.0.1", "localhost"]), prefix: prefix)
    }

    static func headers(bearer: String? = token, host: String? = host, _ extra: HTTPFields = [:]) -> HTTPFields {
        var headers = extra
        if let bearer { headers[.authorization] = "Bearer " + bearer }
        if let host { headers[HTTPField.Name("Host")!] = host }
        return headers
    }

    @Test("A Host the console does not serve gets 403 (DNS rebinding), on every route", arguments: ConsoleMount.all, ["evil.example:8765", "evil.example", "127.0.0.2:8765"])
    func wrongHost(mount: ConsoleMount, host: String) async throws {
        let fixture = try Self.secured(mount: mount)
        try await fixture.test(.router) { client in
            for uri in ["/", "/api/keys", "/api/history?key=k", "/api/events", "/console.js"] {
                try await client.execute(uri: uri, method: .get, headers: Self.headers(host: host)) { #expect($0.status == .forbidden, "\(uri)") }
            }
            try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers(host: "LOCALHOST:1")) { #expect($0.status == .ok) }
        }
    }

    @Test("Without the token every route is 401; a wrong bearer token is 401; the right one passes", arguments: ConsoleMount.all)
    func tokenRequired(mount: ConsoleMount) async throws {
        let fixture = try Self.secured(mount: mount)
        try await fixture.test(.router) { client in
            for uri in ["/", "/api/keys", "/api/history?key=k", "/api/events", "/console.js", "/console.css"] {
                try await client.execute(uri: uri, method: .get, headers: Self.headers(bearer: nil)) { #expect($0.status == .unauthorized, "\(uri)") }
            }
            try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers(bearer: "wrong")) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers(bearer: Self.token + "x")) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers()) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/keys/k", method: .put, headers: Self.headers(bearer: nil, jsonHeaders()),
                                     body: ByteBuffer(string: #"{"value": 1}"#)) { #expect($0.status == .unauthorized) }
        }
        #expect(try fixture.stored("k") == nil)
    }

    @Test("?token= opens a session: an HttpOnly, SameSite=Strict cookie named after the port, holding a random identifier, never the token; it opens the page and API of this console only", arguments: ConsoleMount.all)
    func tokenCookie(mount: ConsoleMount) async throws {
        let fixture = try Self.secured(mount: mount)
        let other = try Self.secured(mount: mount)
        let query = Self.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let tokenHex = Self.token.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        try await fixture.test(.router) { client in
            let cookie = try await client.execute(uri: "/?token=" + query, method: .get, headers: Self.headers(bearer: nil)) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/")
                let setCookie = try #require(response.headers[.setCookie])
                #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
                #expect(setCookie.hasPrefix("sqlitedefaults_console_8765="), "\(setCookie)")
                #expect(!setCookie.contains(Self.token) && !setCookie.lowercased().contains(tokenHex), "the token is not in the cookie")
                return String(setCookie.split(separator: ";")[0])
            }
            let second = try await client.execute(uri: "/?token=" + query, method: .get, headers: Self.headers(bearer: nil)) {
                String(try #require($0.headers[.setCookie]).split(separator: ";")[0])
            }
            #expect(second != cookie, "each session has its own identifier")
            try await client.execute(uri: "/?token=nope", method: .get, headers: Self.headers(bearer: nil)) { #expect($0.status == .unauthorized) }
            var withCookie = Self.headers(bearer: nil)
            withCookie[.cookie] = cookie
            try await client.execute(uri: "/", method: .get, headers: withCookie) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/keys", method: .get, headers: withCookie) { #expect($0.status == .ok) }
            for forged in ["sqlitedefaults_console_8765=00", "sqlitedefaults_console_8765=" + tokenHex, "sqlitedefaults_console=" + tokenHex,
                           cookie.replacingOccurrences(of: "_8765=", with: "_9999=")] {
                withCookie[.cookie] = forged
                try await client.execute(uri: "/api/keys", method: .get, headers: withCookie) { #expect($0.status == .unauthorized, "\(forged)") }
            }
            // Another console (another server on this host) does not know this one's sessions.
            try await other.test(.router) { otherClient in
                var replayed = Self.headers(bearer: nil)
                replayed[.cookie] = cookie
                try await otherClient.execute(uri: "/api/keys", method: .get, headers: replayed) { #expect($0.status == .unauthorized) }
            }
        }
    }

    @Test("A Host is compared as an address: [0:0:0:0:0:0:0:1] is [::1], [::ffff:127.0.0.1] is 127.0.0.1; others stay refused", arguments: ConsoleMount.all)
    func hostAddressesCompareCanonically(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount, configuration: .init(allowedHosts: ["[0:0:0:0:0:0:0:1]", "127.0.0.1"]))
        try await fixture.test(.router) { client in
            for host in ["[::1]:8765", "[0:0:0:0:0:0:0:1]:8765", "[::0:1]", "[::ffff:127.0.0.1]:80", "[::FFFF:7f00:1]:1", "127.0.0.1:1"] {
                try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers(bearer: nil, host: host)) { #expect($0.status == .ok, "\(host)") }
            }
            for host in ["[::2]:8765", "127.0.0.2", "localhost:8765", "[::ffff:127.0.0.2]", "0x7f.0.0.1"] {
                try await client.execute(uri: "/api/keys", method: .get, headers: Self.headers(bearer: nil, host: host)) { #expect($0.status == .forbidden, "\(host)") }
            }
        }
    }

    @Test("onlyOwnerConnections refuses a request whose context does not know the remote address (403)")
    func ownerOnlyNeedsTheRemoteAddress() async throws {
        let fixture = try ConsoleFixture(configuration: .init(onlyOwnerConnections: true))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys", method: .get) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.contentSecurityPolicy] != nil)
            }
        }
    }

    #if Vapor
    /// (The Hummingbird fixture's context does not know the remote address; `prefs serve`'s does,
    /// and ServeSecurityTests covers it.)
    @Test("onlyOwnerConnections on the Vapor mount serves the owner's own loopback connection (Vapor knows the remote address)")
    func ownerOnlyServesTheOwner() async throws {
        let fixture = try ConsoleFixture(mount: .vapor, configuration: .init(onlyOwnerConnections: true))
        try await fixture.test(.live) { client in
            try await client.execute(uri: "/api/keys", method: .get) { #expect($0.status == .ok) }
        }
    }
    #endif

    @Test("Under a prefix, ?token= redirects to the prefix's page and scopes the cookie to it", arguments: ConsoleMount.all)
    func tokenCookieUnderPrefix(mount: ConsoleMount) async throws {
        let fixture = try Self.secured(mount: mount, prefix: "admin/prefs")
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/admin/prefs/?token=" + Self.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                                     method: .get, headers: Self.headers(bearer: nil)) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/admin/prefs/")
                #expect(response.headers[.setCookie]?.contains("Path=/admin/prefs/") == true)
            }
        }
    }

    @Test("A write from another Origin is 403 and writes nothing; the page's own origin passes", arguments: ConsoleMount.all, ["PUT", "DELETE"])
    func foreignOrigin(mount: ConsoleMount, method: String) async throws {
        let fixture = try Self.secured(mount: mount)
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("k"))
        let httpMethod = HTTPRequest.Method(method)!
        let body = method == "PUT" ? ByteBuffer(string: #"{"value": 2}"#) : nil
        try await fixture.test(.router) { client in
            for origin in ["http://evil.example", "null", "http://127.0.0.1:9999", "https://evil.example:8765"] {
                try await client.execute(uri: "/api/keys/k", method: httpMethod, headers: Self.headers(jsonHeaders(origin: origin)), body: body) { response in
                    #expect(response.status == .forbidden, "\(origin)")
                }
            }
        }
        #expect(try fixture.stored("k") == .integer(1))
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: httpMethod, headers: Self.headers(jsonHeaders(origin: "http://" + Self.host)), body: body) { response in
                #expect(response.status == (method == "PUT" ? .ok : .noContent))
            }
        }
        #expect(try fixture.stored("k") == (method == "PUT" ? .integer(2) : nil))
    }

    @Test("A write whose body is not application/json is 403 and writes nothing", arguments: ConsoleMount.all, ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil])
    func notJSON(mount: ConsoleMount, contentType: String?) async throws {
        let fixture = try Self.secured(mount: mount)
        var refused = Self.headers()
        if let contentType { refused[.contentType] = contentType }
        var accepted = Self.headers()
        accepted[.contentType] = "application/json; charset=utf-8"
        try await fixture.test(.router) { [refused, accepted] client in
            try await client.execute(uri: "/api/keys/k", method: .put, headers: refused, body: ByteBuffer(string: #"{"value": 2}"#)) { response in
                #expect(response.status == .forbidden)
            }
            #expect(try fixture.stored("k") == nil)
            try await client.execute(uri: "/api/keys/k", method: .put, headers: accepted, body: ByteBuffer(string: #"{"value": 2}"#)) { response in
                #expect(response.status == .ok)
            }
        }
        #expect(try fixture.stored("k") == .integer(2))
    }

    @Test("A body over 1 MiB is 413 and writes nothing", arguments: ConsoleMount.all)
    func bodyTooLarge(mount: ConsoleMount) async throws {
        let fixture = try Self.secured(mount: mount)
        let body = #"{"value": ""# + String(repeating: "x", count: 1 << 20) + #""}"#
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: .put, headers: Self.headers(jsonHeaders()), body: ByteBuffer(string: body)) { response in
                #expect(response.status == .contentTooLarge)
            }
        }
        #expect(try fixture.stored("k") == nil)
    }

    @Test("A chunked body over 1 MiB (no Content-Length to refuse early) is 413 {\"error\"} with the security headers; nothing is written", arguments: ConsoleMount.all)
    func chunkedBodyTooLarge(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let response = try await onOwnThread { () throws -> RawHTTPConnection.Response in
                let connection = try RawHTTPConnection(port: port)
                let chunk = Data(#"{"value": ""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 1 << 20) + Data(#""}"#.utf8)
                let head = "PUT /api/keys/k HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                try connection.write(Data(head.utf8) + Data((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Data("\r\n0\r\n\r\n".utf8))
                return try connection.response(timeout: .seconds(60))
            }
            #expect(response.status == 413)
            #expect(response.text.contains(#""error""#), "\(response.text)")
            #expect(response.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        }
        #expect(try fixture.stored("k") == nil)
    }

    @Test("Every response, refusals included, carries a CSP without inline script, nosniff and no referrer", arguments: ConsoleMount.all)
    func securityHeaders(mount: ConsoleMount) async throws {
        let fixture = try Self.secured(mount: mount)
        try await fixture.test(.router) { client in
            for headers in [Self.headers(), Self.headers(bearer: nil), Self.headers(host: "evil.example")] {
                try await client.execute(uri: "/", method: .get, headers: headers) { response in
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'") && !policy.contains("unsafe"))
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                }
            }
        }
    }
}
#endif
