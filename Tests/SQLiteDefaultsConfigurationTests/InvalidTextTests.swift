#if Configuration && Prefs
import Configuration
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConfiguration
import Testing
import TestScheduling

/// A TEXT row that another client wrote as bytes that are not valid UTF-8 is not handed out
/// as a changed string: the lookup throws `.decodingFailed` naming the key.
@Suite("DefaultsConfigProvider: TEXT that is not valid UTF-8", .offThePool, .requiresSQLiteShell)
struct InvalidTextTests {
    @Test("a .string lookup throws .decodingFailed naming the key, not .typeMismatch")
    func stringLookupRefuses() async throws {
        let test = try TestStore()
        try await test.store.set("ok", for: DefaultsKey<String>("plain", default: ""))
        try await sqlite3(test.path, "INSERT INTO defaults(key, value) VALUES ('odd', CAST(X'61FF62' AS TEXT));")
        let provider = DefaultsConfigProvider(store: test.store)
        let error = #expect(throws: DefaultsError.self) { try provider.value(forKey: ["odd"], type: .string) }
        #expect(error?.code == .decodingFailed)
        #expect(error?.key == "odd")
        #expect(try provider.value(forKey: ["plain"], type: .string).value?.content == .string("ok"))
    }
}
#endif
