#if Vapor
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConsole
import SQLiteDefaultsVapor
import Testing
import VaporTesting
import TestScheduling

/// The app's own authentication: `Authorization: Bearer alice-token` is the user alice.
struct TestUser: Authenticatable {
    let name: String
}

struct TestAuthenticator: AsyncBearerAuthenticator {
    func authenticate(bearer: BearerAuthorization, for request: Request) async throws {
        if bearer.token == "alice-token" { request.auth.login(TestUser(name: "alice")) }
        if bearer.token == "bob-token" { request.auth.login(TestUser(name: "bob")) }
    }
}

@Suite("app.defaults.console: the console mounted in a Vapor app", .offThePool)
struct VaporConsoleMountTests {
    static let alice: HTTPHeaders = ["Authorization": "Bearer alice-token"]

    /// An app with a store and the console at /admin/prefs/, behind the app's authenticator
    /// and guard; the console names the app's user as the actor of its writes.
    static func withConsole(_ test: (Application, DefaultsStore) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        try await withApp { app in
            try app.defaults.use(path: directory.path + "/defaults.sqlite")
            let admin = app.grouped("admin", "prefs").grouped(TestAuthenticator(), TestUser.guardMiddleware())
            try app.defaults.console.mount(on: admin) { req in req.auth.get(TestUser.self)?.name }
            try await test(app, app.defaults.store)
        }
    }

    @Test("Behind a prefix and the app's middleware: without the app's auth the app answers 401; with it the page, its assets and the API work under the prefix")
    func prefixAndMiddleware() async throws {
        try await Self.withConsole { app, store in
            try await store.set(.integer(3), for: DefaultsKey<SQLiteValue?>("limit"))
            let tester = try app.testing()
            for path in ["admin/prefs/", "admin/prefs/api/keys", "admin/prefs/console.js", "admin/prefs/api/events"] {
                try await tester.test(.GET, path) { #expect($0.status == .unauthorized, "\(path)") }
                try await tester.test(.GET, path, headers: ["Authorization": "Bearer wrong"]) { #expect($0.status == .unauthorized, "\(path)") }
            }
            // The page is served at the prefix with its trailing slash; without it, a redirect.
            try await tester.test(.GET, "admin/prefs", headers: Self.alice) { response in
                #expect(response.status == .movedPermanently)
                #expect(response.headers.first(name: .location) == "/admin/prefs/")
            }
            try await tester.test(.GET, "admin/prefs/", headers: Self.alice) { response in
                #expect(response.status == .ok)
                // Relative links, so they resolve below the prefix.
                #expect(response.body.string.contains(#"src="console.js""#))
                #expect(response.headers.first(name: "Content-Security-Policy")?.contains("default-src 'none'") == true)
            }
            try await tester.test(.GET, "admin/prefs/console.js", headers: Self.alice) { #expect($0.status == .ok) }
            try await tester.test(.GET, "admin/prefs/api/keys", headers: Self.alice) { response in
                #expect(response.status == .ok)
                #expect(response.body.string.contains(#""key":"limit""#))
            }
            try await tester.test(.GET, "admin/prefs/api/session", headers: Self.alice) { response in
                #expect(response.body.string == #"{"name":"alice","role":"admin","prefixes":[]}"#)
            }
            // Nothing is mounted outside the prefix.
            try await tester.test(.GET, "api/keys", headers: Self.alice) { #expect($0.status == .notFound) }
        }
    }

    @Test("A write through the mounted console records the app's user as the history's actor")
    func actorFromTheApp() async throws {
        try await Self.withConsole { app, store in
            var headers = Self.alice
            headers.contentType = .json
            try await app.testing().test(.PUT, "admin/prefs/api/keys/feature.beta", headers: headers,
                                         body: ByteBuffer(string: #"{"value": true, "reason": "launch"}"#)) { response in
                #expect(response.status == .ok, "\(response.body.string)")
            }
            let entry = try await #require(try store.history(keys: ["feature.beta"]).first)
            #expect(entry.writer.actor == "alice")
            #expect(entry.writer.reason == "launch")
            try await app.testing().test(.GET, "admin/prefs/api/history?key=feature.beta", headers: Self.alice) { response in
                #expect(response.body.string.contains(#""actor":"alice""#), "\(response.body.string)")
            }
        }
    }

    @Test("A body over Vapor's own 16 KiB collection limit reaches the console (its limit is 1 MiB)")
    func largeBody() async throws {
        try await Self.withConsole { app, store in
            var headers = Self.alice
            headers.contentType = .json
            let text = String(repeating: "x", count: 100_000)
            try await app.testing().test(.PUT, "admin/prefs/api/keys/big", headers: headers,
                                         body: ByteBuffer(string: #"{"value": "\#(text)"}"#)) { response in
                #expect(response.status == .ok)
            }
            #expect(try store.value(for: DefaultsKey<SQLiteValue?>("big")) == .text(text))
        }
    }

    @Test("principal: the app decides each user's role; a reader may look but not write")
    func appRoles() async throws {
        let directory = try TemporaryDirectory()
        try await withApp { app in
            try app.defaults.use(path: directory.path + "/defaults.sqlite")
            let admin = app.grouped("prefs").grouped(TestAuthenticator(), TestUser.guardMiddleware())
            try app.defaults.console.mount(on: admin) { req in
                req.auth.get(TestUser.self).map { ConsolePrincipal(name: $0.name, role: $0.name == "alice" ? .admin : .read) }
            }
            let bob: HTTPHeaders = ["Authorization": "Bearer bob-token", "Content-Type": "application/json"]
            try await app.testing().test(.GET, "prefs/api/keys", headers: bob) { #expect($0.status == .ok) }
            try await app.testing().test(.PUT, "prefs/api/keys/k", headers: bob, body: ByteBuffer(string: #"{"value": 1}"#)) {
                #expect($0.status == .forbidden)
            }
            #expect(try app.defaults.store.value(for: DefaultsKey<SQLiteValue?>("k")) == nil)
        }
    }
}
#endif
