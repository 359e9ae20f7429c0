#if Console
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLiteDefaults
import Testing
import TestScheduling

/// A secret key and its canonically equivalent twin ("pé" as one code point, and "pe" + U+0301)
/// are two keys: the twin is neither masked nor given the secret's declared type anywhere the
/// console shows keys — the list, one key, the history. Keyed by `String`, it was masked
/// (harmless) and took the secret's type in the history (wrong).
@Suite("Console: a secret's canonically equivalent twin is its own key", .offThePool)
struct ConsoleTwinSecrecyTests {
    static let composed = "p\u{E9}", decomposed = "pe\u{301}"

    static func fixture(_ mount: ConsoleMount) async throws -> ConsoleFixture {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.declare(DefaultsDeclaration(key: composed, type: .string, isSecret: true))
        try await fixture.store.set(.text("hunter2"), for: DefaultsKey<SQLiteValue?>(composed))
        try await fixture.store.declare(DefaultsDeclaration(key: decomposed, type: .int))
        try await fixture.store.set(.integer(7), for: DefaultsKey<SQLiteValue?>(decomposed))
        return fixture
    }

    static func named(_ key: String, in list: [[String: Any]]) -> [[String: Any]] {
        list.filter { ($0["key"] as? String)?.utf8.elementsEqual(key.utf8) == true }
    }

    @Test("the list and a written key's entry: the secret masked, its twin shown with its own type", arguments: ConsoleMount.all)
    func listAndEntry(mount: ConsoleMount) async throws {
        let fixture = try await Self.fixture(mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys", method: .get) { response in
                let keys = try #require((parsedJSON(response.body) as? [String: Any])?["keys"] as? [[String: Any]])
                let secret = try #require(Self.named(Self.composed, in: keys).first)
                let twin = try #require(Self.named(Self.decomposed, in: keys).first)
                #expect(secret["secret"] as? Bool == true && secret["value"] is NSNull)
                #expect(twin["secret"] == nil && twin["value"] as? Int == 7 && twin["type"] as? String == "int")
            }
            // A write answers with the key's entry (ConsoleCatalog.entry(for:)).
            try await client.execute(uri: "/api/keys/" + encodedKey(Self.decomposed), method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": 8}"#)) { response in
                #expect(response.status == .ok, "\(response.body.text)")
                let twin = try #require(parsedJSON(response.body) as? [String: Any])
                #expect(twin["secret"] == nil && twin["value"] as? Int == 8, "\(twin)")
            }
            try await client.execute(uri: "/api/keys/" + encodedKey(Self.composed), method: .put, headers: jsonHeaders(),
                                     body: ByteBuffer(string: #"{"value": "hunter3"}"#)) { response in
                #expect(response.status == .ok, "\(response.body.text)")
                let secret = try #require(parsedJSON(response.body) as? [String: Any])
                #expect(secret["secret"] as? Bool == true && secret["value"] is NSNull, "\(secret)")
            }
        }
    }

    @Test("the history: the secret's entries masked, the twin's shown with the twin's declared type", arguments: ConsoleMount.all)
    func history(mount: ConsoleMount) async throws {
        let fixture = try await Self.fixture(mount)
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/history", method: .get) { response in
                #expect(response.status == .ok)
                let entries = try #require(parsedJSON(response.body) as? [[String: Any]])
                let secret = Self.named(Self.composed, in: entries), twin = Self.named(Self.decomposed, in: entries)
                #expect(secret.count == 1 && twin.count == 1, "\(entries)")
                #expect(secret.allSatisfy { $0["secret"] as? Bool == true && $0["value"] is NSNull && $0["type"] as? String == "string" })
                #expect(twin.allSatisfy { $0["secret"] == nil && $0["value"] as? Int == 7 && $0["type"] as? String == "int" }, "\(twin)")
            }
        }
    }
}
#endif
