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

/// A secret's digest is no oracle: it is keyed by the key as well as the value, and only a
/// principal that may read or write that key (an admin, a writer within its prefixes) sees it,
/// in `api/history` and in `api/keys`'
/// last change.
@Suite("Console: a secret's digest is shown only to who may read or write the key", .offThePool)
struct ConsoleSecretDigestTests {
    struct Served {
        let fixture: ConsoleFixture
        let admin: String, writer: String, reader: String
    }

    static func served(_ mount: ConsoleMount) throws -> Served {
        var tokens = ConsoleTokens()
        let admin = try tokens.add(name: "root", role: .admin)
        let writer = try tokens.add(name: "alice", role: .write, prefixes: ["team-a."])
        let reader = try tokens.add(name: "dashboards", role: .read)
        let fixture = try ConsoleFixture(mount: mount, configuration: .init(tokens: tokens))
        for name in ["team-a.token", "team-b.dbpass"] {
            let key = DefaultsKey<String>(name, default: "", secret: true)
            try fixture.store.declare(key)
        }
        try fixture.store.set("winter2026", for: DefaultsKey<String>("team-b.dbpass", default: "", secret: true))
        return Served(fixture: fixture, admin: admin, writer: writer, reader: reader)
    }

    static func headers(_ token: String) -> HTTPFields {
        var headers = jsonHeaders()
        headers[.authorization] = "Bearer " + token
        return headers
    }

    static func history(_ client: ConsoleTestClient, _ key: String, token: String) async throws -> [[String: Any]] {
        try await client.execute(uri: "/api/history?key=" + key, method: .get, headers: headers(token)) { response in
            #expect(response.status == .ok)
            return parsedJSON(response.body) as? [[String: Any]] ?? []
        }
    }

    static func listed(_ client: ConsoleTestClient, _ key: String, token: String) async throws -> [String: Any]? {
        try await client.execute(uri: "/api/keys", method: .get, headers: headers(token)) { response in
            let keys = (parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]] ?? []
            return keys.first { $0["key"] as? String == key }
        }
    }

    @Test("A writer who writes a guess to its own secret key cannot compare digests across keys: it sees its own key's only, and they differ from another key's",
          arguments: ConsoleMount.all)
    func noOracle(mount: ConsoleMount) async throws {
        let served = try Self.served(mount)
        try await served.fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/team-a.token", method: .put, headers: Self.headers(served.writer),
                                     body: ByteBuffer(string: #"{"value": "winter2026"}"#)) { #expect($0.status == .ok) }
            // A reader sees no digest; the writer only those of the key it may write, which
            // differ from the other key's digests of the same value.
            let cases: [(token: String, seen: Set<String>)] = [(served.reader, []), (served.writer, ["team-a.token"])]
            for (token, seen) in cases {
                for key in ["team-a.token", "team-b.dbpass"] {
                    let entries = try await Self.history(client, key, token: token)
                    let shown = seen.contains(key)
                    let allSecret = entries.allSatisfy { $0["secret"] as? Bool == true }
                    let digests = entries.filter { $0["digest"] is String }.count
                    #expect(entries.count == 1 && allSecret && digests == (shown ? 1 : 0), "\(key): \(entries)")
                    let changed = try #require(try await Self.listed(client, key, token: token))["changed"] as? [String: Any]
                    let changedDigest = changed?["digest"] is String
                    #expect(changed?["secret"] as? Bool == true && changedDigest == shown, "\(key): \(String(describing: changed))")
                }
                let all = try await client.execute(uri: "/api/history", method: .get, headers: Self.headers(token)) { $0.body.text }
                #expect(all.contains("digest") == !seen.isEmpty, "\(all)")
            }
            let own = try await Self.history(client, "team-a.token", token: served.writer).first?["digest"] as? String
            let adminsView = try await Self.history(client, "team-a.token", token: served.admin).first?["digest"] as? String
            #expect(own != nil && own == adminsView)
            let a = try await Self.history(client, "team-a.token", token: served.admin).first?["digest"] as? String
            let b = try await Self.history(client, "team-b.dbpass", token: served.admin).first?["digest"] as? String
            #expect(a?.count == 64 && b?.count == 64, "an admin sees them")
            #expect(a != b, "equal values of two keys: different digests")
            let listed = try #require(try await Self.listed(client, "team-b.dbpass", token: served.admin))["changed"] as? [String: Any]
            #expect(listed?["digest"] as? String == b)
            // Equal values of one key still have equal digests: the admin can tell a value came back.
            for value in ["spring2027", "winter2026"] {
                try await client.execute(uri: "/api/keys/team-b.dbpass", method: .put, headers: Self.headers(served.admin),
                                         body: ByteBuffer(string: #"{"value": "\#(value)"}"#)) { #expect($0.status == .ok) }
            }
            let digests = try await Self.history(client, "team-b.dbpass", token: served.admin).compactMap { $0["digest"] as? String }
            #expect(digests.count == 3 && digests[0] == digests[2] && digests[0] != digests[1], "\(digests)")
        }
    }
}
#endif
