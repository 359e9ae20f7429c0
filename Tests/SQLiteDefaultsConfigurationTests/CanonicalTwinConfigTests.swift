#if Configuration && Prefs
import Configuration
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConfiguration
import Testing
import TestScheduling

/// NFC and NFD "café" are equal `String`s and two rows: a snapshot and a lookup read each
/// twin's own row and its own secrecy (issue 46's sibling: maps keyed by `String`).
@Suite("DefaultsConfigProvider and canonically equivalent keys", .offThePool)
struct CanonicalTwinConfigTests {
    @Test("each twin reads its own value, and only the secret one is marked secret")
    func twinsAreTwoKeys() async throws {
        let test = try TestStore()
        let nfc = DefaultsKey<String>("caf\u{E9}", default: "", secret: true)
        let nfd = DefaultsKey<String>("cafe\u{301}", default: "")
        try await test.store.declare(nfc)
        test.store[nfc] = "s3cret"
        test.store[nfd] = "plain"
        let provider = DefaultsConfigProvider(store: test.store)
        let snapshot = provider.snapshot()
        for read in [
            { (key: AbsoluteConfigKey) in try snapshot.value(forKey: key, type: .string).value },
            { (key: AbsoluteConfigKey) in try provider.value(forKey: key, type: .string).value },
        ] as [(AbsoluteConfigKey) throws -> ConfigValue?] {
            let secret = try read(["caf\u{E9}"])
            let plain = try read(["cafe\u{301}"])
            #expect(secret?.content == .string("s3cret") && secret?.isSecret == true)
            #expect(plain?.content == .string("plain") && plain?.isSecret == false)
        }
        let fetched = try await provider.fetchValue(forKey: ["cafe\u{301}"], type: .string).value
        #expect(fetched?.content == .string("plain") && fetched?.isSecret == false)
    }
}
#endif
