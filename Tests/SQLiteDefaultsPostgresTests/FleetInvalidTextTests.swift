#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
import Testing
import TestScheduling

/// TEXT that is not valid UTF-8 (written by a plain SQL client) crosses the fleet byte for
/// byte, as TEXT, like every other storage class.
@Suite("Fleet: TEXT that is not valid UTF-8", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetInvalidTextTests {
    @Test("61 FF 62 written with sqlite3 on one machine arrives as the same TEXT on the other")
    func arrivesExactly() async throws {
        try await withPair { _, a, b in
            _ = try await sqlite3(a.path, "INSERT INTO defaults(key, value) VALUES ('odd', CAST(X'61FF62' AS TEXT))")
            let expected = SQLiteValue.invalidUTF8Text(Data([0x61, 0xFF, 0x62]))
            #expect(await waitUntil(timeout: .seconds(60)) { try b.store.value(for: DefaultsKey<SQLiteValue?>("odd")) == expected })
            #expect(try await sqlite3(b.path, "SELECT typeof(value) || ' ' || hex(value) FROM defaults WHERE key = 'odd'") == "text 61FF62")
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }
}
#endif
