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

/// `If-Match: "0"` is "create only" (issue 46, finding 44): a key whose only change the history
/// pruned still has its version, so the console refuses to overwrite it (412, the current
/// entry) and the version it lists still writes.
@Suite("Console: a key's version survives pruning", .offThePool)
struct ConsolePrunedVersionTests {
    @Test("If-Match \"0\" on a stored key whose history was pruned is 412 and writes nothing; its listed seq writes",
          arguments: ConsoleMount.all)
    func createOnlyAfterPruning(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let stable = DefaultsKey<String>("api.url", default: "")
        try await fixture.store.setHistoryRetention(100)
        fixture.store[stable] = "https://prod.example/"
        let version = try fixture.store.version(of: stable.name)
        for value in 1...1_200 { fixture.store[DefaultsKey<Int>("counter", default: 0)] = value }
        #expect(try await fixture.store.history(for: stable, limit: 1).isEmpty, "the test needs the key's entry pruned")
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/api.url", method: .put, headers: jsonHeaders(extra: [HTTPField.Name("If-Match")!: "\"0\""]),
                                     body: ByteBuffer(string: #"{"value": "https://attacker.example/"}"#)) { response in
                #expect(response.status == .preconditionFailed, "\(response.status) \(response.body.text)")
                #expect(response.body.text.contains(#""seq":\#(version),"#), "the current entry: \(response.body.text)")
            }
            try await client.execute(uri: "/api/keys/api.url", method: .delete, headers: jsonHeaders(extra: [HTTPField.Name("If-Match")!: "\"0\""])) { response in
                #expect(response.status == .preconditionFailed, "DELETE: \(response.status)")
            }
            #expect(try fixture.stored("api.url") == .text("https://prod.example/"))
            try await client.execute(uri: "/api/keys/api.url", method: .put, headers: jsonHeaders(extra: [HTTPField.Name("If-Match")!: "\"\(version)\""]),
                                     body: ByteBuffer(string: #"{"value": "https://new.example/"}"#)) { response in
                #expect(response.status == .ok, "the version the key still has writes: \(response.body.text)")
            }
        }
        #expect(try fixture.stored("api.url") == .text("https://new.example/"))
    }
}
#endif
