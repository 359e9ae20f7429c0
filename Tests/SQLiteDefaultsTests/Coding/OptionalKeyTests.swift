import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Optional keys pick the wrapped type's coding, whichever initializer form declares them: a
/// type that is both `RawRepresentable` and `Codable` is stored as its raw value, with or
/// without a `default:` argument (before, `default: .fast` chose the plain `Codable`
/// initializer and stored JSON text).
@Suite("Optional keys", .offThePool, .requiresSQLiteShell)
struct OptionalKeyTests {
    enum Mode: String, Codable, Sendable { case fast, safe }
    enum Level: Int, Sendable { case low = 1, high = 2 }
    struct Profile: Codable, Equatable, Sendable { var name: String }

    @Test("every optional form stores the wrapped type's own representation")
    func optionalFormsStoreTheWrappedRepresentation() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let keys = (
            mode: DefaultsKey<Mode?>("mode", default: .fast),
            modeNil: DefaultsKey<Mode?>("modeNil"),
            modeExplicitNil: DefaultsKey<Mode?>("modeExplicitNil", default: nil),
            level: DefaultsKey<Level?>("level", default: .low),
            profile: DefaultsKey<Profile?>("profile", default: Profile(name: "Guest")),
            numbers: DefaultsKey<[Int]?>("numbers", default: [1]),
            count: DefaultsKey<Int?>("count", default: 3)
        )
        #expect(store[keys.mode] == .fast && store[keys.modeNil] == nil && store[keys.level] == .low)
        #expect(store[keys.profile] == Profile(name: "Guest") && store[keys.numbers] == [1] && store[keys.count] == 3)
        store[keys.mode] = .safe
        store[keys.modeNil] = .fast
        store[keys.modeExplicitNil] = .safe
        store[keys.level] = .high
        store[keys.profile] = Profile(name: "Ada")
        store[keys.numbers] = [3, 4, 5]
        store[keys.count] = 7
        let rows = try await sqlite3(directory.database, "SELECT group_concat(key || '=' || typeof(value) || ':' || value, ' ') FROM (SELECT * FROM defaults ORDER BY key)")
        #expect(rows == #"count=integer:7 level=integer:2 mode=text:safe modeExplicitNil=text:safe modeNil=text:fast numbers=text:[3,4,5] profile=text:{"name":"Ada"}"#)
        store[keys.mode] = nil
        #expect(!store.contains(keys.mode) && store[keys.mode] == .fast)
    }
}
