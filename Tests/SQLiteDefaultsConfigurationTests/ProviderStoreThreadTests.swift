#if Configuration && Prefs
import Configuration
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConfiguration
import Testing
import TestScheduling

@Suite("DefaultsConfigProvider: its async reads leave SQLite to the store's thread", .offThePool)
struct ProviderStoreThreadTests {
    @Test("fetchValue, watchValue and watchSnapshot step no statement on the cooperative pool")
    func asyncReadsStepNoStatementOnThePool() async throws {
        let test = try TestStore()
        let port = DefaultsKey<Int>("http.port", default: 8080)
        try await test.store.declare(port)
        try await test.store.set(9090, for: port)
        let provider = DefaultsConfigProvider(store: test.store)
        let mark = StatementProbe.start()
        #expect(try await provider.fetchValue(forKey: ["http", "port"], type: .int).value?.content == .int(9090))
        let first = try await provider.watchValue(forKey: ["http", "port"], type: .int) { updates in
            var iterator = updates.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(try first?.get().value?.content == .int(9090))
        let snapshot = try await provider.watchSnapshot { updates in
            var iterator = updates.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(try snapshot?.value(forKey: ["http", "port"], type: .int).value?.content == .int(9090))
        let seen = StatementProbe.stop(mark, under: test.directory.path)
        #expect(seen.isEmpty, "statements stepped on the pool: \(seen)")
    }
}
#endif
