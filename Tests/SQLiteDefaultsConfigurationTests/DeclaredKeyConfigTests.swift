#if Configuration && Prefs
import Configuration
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConfiguration
import Testing
import TestScheduling

@Suite("DefaultsConfigProvider and declared keys", .offThePool)
struct DeclaredKeyConfigTests {
    @Test("a declared key read as the wrong ConfigType fails with a message naming the declared type")
    func wrongTypeNamesTheDeclaration() throws {
        let test = try TestStore()
        try test.store.declare(DefaultsKey<Int>("http.port", default: 8080))
        try test.store.set(9090, for: DefaultsKey<Int>("http.port", default: 8080))
        let provider = DefaultsConfigProvider(store: test.store)
        #expect(try provider.value(forKey: ["http", "port"], type: .int).value?.content == .int(9090))
        for read in [
            { _ = try provider.value(forKey: ["http", "port"], type: .string) },
            { _ = try provider.snapshot().value(forKey: ["http", "port"], type: .bytes) },
        ] as [() throws -> Void] {
            do {
                try read()
                Issue.record("expected an error")
            } catch let error as DefaultsError {
                #expect(error.code == .typeMismatch)
                #expect(error.message.contains("declared int"), "\(error)")
                #expect(error.key == "http.port")
            }
        }
    }
}
#endif
