#if Console && Prefs
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// The session table is bounded per token: no token holder can end another's sessions by
/// opening its own.
@Suite("Console sessions, bounded per token", .offThePool)
struct ConsoleSessionsTests {
    static func credential(_ name: String, _ role: ConsoleRole = .read) -> ConsoleCredential {
        ConsoleCredential(entry: ConsoleTokens.Entry(name: name, role: role, token: "token-of-" + name), source: .configured)
    }

    @Test("A token that opens sessions in a loop forgets only its own oldest ones; another token's session stays")
    func perToken() {
        let sessions = ConsoleSessions(lifetime: .seconds(3600), perToken: 4, total: 100)
        let admin = Self.credential("admin", .admin), reader = Self.credential("dashboards")
        let adminSession = sessions.open(for: admin)
        let opened = (0..<50).map { _ in sessions.open(for: reader) }
        #expect(sessions.credential(of: adminSession) == admin, "the admin's session survived")
        #expect(opened.suffix(4).allSatisfy { sessions.credential(of: $0) == reader }, "the token's newest four stand")
        #expect(opened.dropLast(4).allSatisfy { sessions.credential(of: $0) == nil }, "its older ones were forgotten")
    }

    @Test("A full table takes a session from the token holding the most, never from one holding fewer than the opener")
    func fullTable() {
        let sessions = ConsoleSessions(lifetime: .seconds(3600), perToken: 3, total: 6)
        let a = Self.credential("a"), b = Self.credential("b"), c = Self.credential("c"), d = Self.credential("d")
        let aSessions = (0..<3).map { _ in sessions.open(for: a) }
        let bSessions = (0..<2).map { _ in sessions.open(for: b) }
        let cSession = sessions.open(for: c)
        // Full (6). d holds none: the heaviest, a, gives up its oldest.
        let dSession = sessions.open(for: d)
        #expect(sessions.credential(of: aSessions[0]) == nil)
        #expect(aSessions.dropFirst().allSatisfy { sessions.credential(of: $0) == a })
        #expect(bSessions.allSatisfy { sessions.credential(of: $0) == b })
        #expect(sessions.credential(of: cSession) == c && sessions.credential(of: dSession) == d)
        // Full again; a and b hold two each, c and d one: c's second comes from a or b.
        _ = sessions.open(for: c)
        #expect(sessions.credential(of: cSession) == c && sessions.credential(of: dSession) == d, "single sessions stay")
        let left = (aSessions + bSessions).filter { sessions.credential(of: $0) != nil }.count
        #expect(left == 3)
    }

    @Test("Over HTTP: 200 page opens by a read token (?token=) leave the admin's session cookie working", arguments: ConsoleMount.all)
    func readTokenCannotLogTheAdminOut(mount: ConsoleMount) async throws {
        var tokens = ConsoleTokens()
        let admin = try tokens.add(name: "admin", role: .admin)
        let reader = try tokens.add(name: "dashboards", role: .read)
        let fixture = try ConsoleFixture(mount: mount, configuration: .init(tokens: tokens, allowedHosts: ["127.0.0.1"]))
        try await fixture.test(.router) { client in
            var headers = HTTPFields()
            headers[HTTPField.Name("Host")!] = "127.0.0.1"
            let cookie = try await client.execute(uri: "/?token=" + admin, method: .get, headers: headers) { response in
                String(try #require(response.headers[.setCookie]).split(separator: ";")[0])
            }
            var withCookie = headers
            withCookie[.cookie] = cookie
            try await client.execute(uri: "/api/session", method: .get, headers: withCookie) { #expect($0.status == .ok) }
            var readerCookies: [String] = []
            for _ in 0..<200 {
                readerCookies.append(try await client.execute(uri: "/?token=" + reader, method: .get, headers: headers) { response in
                    String(try #require(response.headers[.setCookie]).split(separator: ";")[0])
                })
            }
            try await client.execute(uri: "/api/session", method: .get, headers: withCookie) { response in
                #expect(response.status == .ok, "the admin is still logged in: \(response.body.text)")
                #expect((parsedJSON(response.body) as? [String: Any])?["name"] as? String == "admin")
            }
            withCookie[.cookie] = readerCookies.last
            try await client.execute(uri: "/api/session", method: .get, headers: withCookie) { #expect($0.status == .ok, "its newest session works") }
            withCookie[.cookie] = readerCookies.first
            try await client.execute(uri: "/api/session", method: .get, headers: withCookie) { #expect($0.status == .unauthorized, "its oldest was forgotten") }
        }
    }
}
#endif
