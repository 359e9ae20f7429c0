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

@Suite("Console: its handlers leave SQLite to the store's thread", .offThePool)
struct ConsoleStoreThreadTests {
    @Test("PUT, DELETE, the listing and the history step no statement on the cooperative pool", arguments: ConsoleMount.all)
    func handlersStepNoStatementOnThePool(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("a"))
        let mark = StatementProbe.start()
        try await fixture.test(.router) { client in
            try await client.execute(uri: "/api/keys/k", method: .put, headers: jsonHeaders(), body: ByteBuffer(string: #"{"value": 5}"#)) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/keys", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/history?key=k", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"k\""))
            }
            try await client.execute(uri: "/api/keys/a", method: .delete, headers: jsonHeaders()) { #expect($0.status == .noContent) }
        }
        let seen = StatementProbe.stop(mark, under: fixture.directory.path)
        #expect(seen.isEmpty, "statements stepped on the pool: \(seen)")
        #expect(try fixture.stored("k") == .integer(5))
        #expect(try fixture.stored("a") == nil)
    }
}
#endif
