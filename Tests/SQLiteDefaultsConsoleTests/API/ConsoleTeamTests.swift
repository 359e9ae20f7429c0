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

/// An app's own middleware says who its user is: the mounted console records that name as the
/// actor and applies that principal's role.
struct AppUserMiddleware<Context: RequestContext>: RouterMiddleware {
    let principal: ConsolePrincipal

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await ConsolePrincipal.$current.withValue(principal) { try await next(request, context) }
    }
}

@Suite("Console operated by a team, mounted in an app", .offThePool)
struct ConsoleTeamTests {
    static func mounted(_ principal: ConsolePrincipal) throws -> (ConsoleFixture, Application<RouterResponder<BasicRequestContext>>) {
        let fixture = try ConsoleFixture()
        let router = Router()
        let group = router.group("admin").add(middleware: AppUserMiddleware(principal: principal))
        fixture.console.addRoutes(to: group, atPath: "prefs")
        return (fixture, Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))))
    }

    @Test("The app's user is the actor of a console write, with the body's reason; the history and the key list say so")
    func appUserIsTheActor() async throws {
        let (fixture, app) = try Self.mounted(ConsolePrincipal(name: "grace@app", role: .write, prefixes: ["team."]))
        try await app.test(.router) { client in
            try await client.execute(uri: "/admin/prefs/api/keys/team.limit", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": 10, "reason": "load test"}"#)) { response in
                #expect(response.status == .ok, "\(response.body.text)")
                #expect(response.headers[.eTag] != nil)
            }
            try await client.execute(uri: "/admin/prefs/api/keys/other", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": 1}"#)) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/admin/prefs/api/history?key=team.limit", method: .get) { response in
                let entries = parsedJSON(response.body) as? [[String: Any]] ?? []
                #expect(entries.first?["actor"] as? String == "grace@app" && entries.first?["reason"] as? String == "load test", "\(entries)")
            }
            try await client.execute(uri: "/admin/prefs/api/keys/team.limit/secret", method: .get) { #expect($0.status == .forbidden) }
        }
        let entry = try #require(try await fixture.store.history(keys: ["team.limit"], limit: 1).first)
        #expect(entry.writer.actor == "grace@app" && entry.writer.reason == "load test")
    }

    @Test("Without a token or an app's principal, the owner writes with no actor; a reason alone is recorded")
    func ownerHasNoActor() async throws {
        let fixture = try ConsoleFixture()
        try await fixture.app.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": "v", "reason": "why not"}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/keys/k?reason=done", method: .delete) { #expect($0.status == .noContent) }
        }
        let entries = try await fixture.store.history(keys: ["k"], limit: 2)
        #expect(entries.map(\.writer.actor) == [nil, nil] && entries.map(\.writer.reason) == ["done", "why not"])
    }

    @Test("A 412 on a secret key carries the current entry masked; the owner may reveal it")
    func secretConflictIsMasked() async throws {
        let fixture = try ConsoleFixture()
        try await fixture.store.declare(DefaultsDeclaration(key: "api.token", type: .string, isSecret: true))
        try await fixture.store.set(.text("sk-INPROCESS-MARKER"), for: DefaultsKey<SQLiteValue?>("api.token"))
        try await fixture.app.test(.router) { client in
            try await client.execute(uri: "/api/keys/api.token", method: .put, headers: jsonHeaders(extra: [HTTPField.Name("If-Match")!: "\"999\""]),
                                     body: ByteBuffer(string: #"{"value": "sk-OTHER"}"#)) { response in
                #expect(response.status == .preconditionFailed, "\(response.body.text)")
                #expect(!response.body.text.contains("MARKER") && !response.body.text.contains("sk-OTHER"), "\(response.body.text)")
                let current = (parsedJSON(response.body) as? [String: Any])?["current"] as? [String: Any]
                #expect(current?["secret"] as? Bool == true && current?["value"] is NSNull)
            }
            try await client.execute(uri: "/api/secret?key=api.token", method: .get) { response in
                #expect((parsedJSON(response.body) as? [String: Any])?["value"] as? String == "sk-INPROCESS-MARKER")
            }
        }
        #expect(try fixture.stored("api.token") == .text("sk-INPROCESS-MARKER"))
    }
}
#endif
