import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let name = DefaultsKey<String>("name", default: "")
private let marker = DefaultsKey<String?>("marker")

/// Other connections' changes are applied from the values the change log keeps; the rows are
/// read only where the log does not hold the value. Each case ends with the value a fresh read
/// of the file gives.
@Suite("External changes: values from the log", .offThePool, .requiresSQLiteShell)
struct ExternalValuesFromLogTests {
    @Test func aBurstOfManyKeysArrivesWithEachKeysFinalValue() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let changes = DefaultsChangeCollector(store.changes())
        var script = "BEGIN;\n"
        for index in 0..<2_000 { script += "INSERT INTO defaults VALUES ('k\(index)', \(index));\n" }
        script += "UPDATE defaults SET value = -1 WHERE key = 'k7';\nCOMMIT;\n"
        try await sqlite3(temporary.path, script)
        try await changes.waitFor(count: 2_000, timeout: .seconds(60))
        let byKey = Dictionary(changes.all.map { ($0.key, $0.newValue) }, uniquingKeysWith: { _, last in last })
        #expect(byKey["k7"] == .integer(-1))
        #expect(byKey["k1999"] == .integer(1999))
        #expect(store[DefaultsKey<Int>("k7", default: 0)] == -1)
    }

    @Test func aValueOverTheHistorysLimitAndASecretAreReadFromTheRow() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let secret = DefaultsKey<String>("secret", default: "", secret: true)
        try await store.declare(secret)
        let changes = DefaultsChangeCollector(store.changes())
        let large = String(repeating: "x", count: 20_000)
        try await sqlite3(temporary.path, "INSERT INTO defaults VALUES ('name', '\(large)'); INSERT INTO defaults VALUES ('secret', 's3'); INSERT INTO defaults VALUES ('marker', 'end');")
        try await changes.waitFor(key: "marker", value: .text("end"), timeout: .seconds(60))
        #expect(store[name] == large)
        #expect(store[secret] == "s3")
        #expect(changes.all.first { $0.key == "secret" }?.newValue == .text("s3"))
    }

    @Test func aKeyThisStoreWroteAfterAnotherWriterKeepsThisStoresValue() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let other = try DefaultsStore(path: temporary.path, configuration: { var c = DefaultsStore.Configuration(); c.externalChangeDetection = .off; return c }())
        for round in 0..<20 {
            other[name] = "theirs \(round)"
            store[name] = "mine \(round)"       // committed after theirs, before a look may run
            store[marker] = "round \(round)"
            try await eventually(timeout: .seconds(60)) { store[name] == "mine \(round)" }
        }
        // A marker written by the other store: once it arrives, every look before it ran.
        other[marker] = "last"
        try await eventually(timeout: .seconds(60)) { store[marker] == "last" }
        #expect(store[name] == "mine 19")
        #expect(try DefaultsStore(path: temporary.path)[name] == "mine 19")
    }
}
