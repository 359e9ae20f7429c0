import Foundation
import SQLiteDefaults
import Testing

/// Errors are caught by code, as GRDB's result codes are, and each code means one thing.
@Suite("Error codes")
struct ErrorCodeTests {
    @Test("catch DefaultsError.Code.x catches that code and no other")
    func catchByCode() throws {
        let store = try DefaultsStore.inMemory()
        try store.set("not a number", for: DefaultsKey<String>("count", default: ""))
        var caught: DefaultsError.Code?
        do {
            _ = try store.value(for: DefaultsKey<Int>("count", default: 0))
        } catch DefaultsError.Code.decodingFailed {
            caught = .decodingFailed
        } catch DefaultsError.Code.typeMismatch {
            caught = .typeMismatch
        }
        #expect(caught == .typeMismatch)
        #expect(!(DefaultsError.Code.typeMismatch ~= CancellationError()))
    }

    @Test("a transaction used after it ended throws .misuse")
    func transactionAfterItEnded() throws {
        let store = try DefaultsStore.inMemory()
        var escaped: DefaultsTransaction?
        try store.transaction { tx in escaped = tx }
        let key = DefaultsKey<Int>("count", default: 0)
        #expect(throws: DefaultsError.self) { try escaped?.set(1, for: key) }
        do {
            try escaped?.set(1, for: key)
        } catch DefaultsError.Code.misuse {
            // expected
        }
    }
}

/// The external-change settings that came before `externalChangeDetection` still work, as
/// deprecated forwards to it (until 1.0).
@Suite("Deprecated configuration names")
struct DeprecatedConfigurationTests {
    @available(*, deprecated, message: "exercises deprecated forwards")
    @Test("observesExternalChanges and safetyPollInterval forward to externalChangeDetection")
    func forwards() {
        var configuration = DefaultsStore.Configuration()
        #expect(configuration.observesExternalChanges)
        configuration.safetyPollInterval = .seconds(30)
        #expect(configuration.externalChangeDetection == .automatic(safetyPollInterval: .seconds(30)))
        configuration.observesExternalChanges = false
        #expect(configuration.externalChangeDetection == .off)
        configuration.observesExternalChanges = true
        #expect(configuration.externalChangeDetection == .automatic)
        configuration.externalChangeDetection = .polling(interval: .milliseconds(100))
        configuration.safetyPollInterval = .seconds(5)
        #expect(configuration.externalChangeDetection == .polling(interval: .milliseconds(100)))
    }
}
