import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Misuse of the lifecycle API: `close()` where it cannot work, and
/// configuration values out of range beyond the safety poll and the value length.
@Suite("Lifecycle and configuration misuse", .offThePool)
struct LifecycleMisuseTests {
    @Test("close() inside the store's own transaction throws .misuse and leaves the store open and the transaction whole")
    func closeInsideATransactionIsRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let count = DefaultsKey<Int>("count", default: 0)
        var refused: DefaultsError?
        try store.transaction { tx in
            tx[count] = 1
            do { try store.close() } catch let error as DefaultsError { refused = error }
            tx[count] = 2
        }
        #expect(refused?.code == .misuse)
        #expect(!store.isClosed)
        #expect(try store.value(for: count) == 2)
        try store.close()
        #expect(store.isClosed)
    }

    @Test("a zero or negative polling interval, or a negative busy timeout, is .invalidConfiguration; no file is created")
    func outOfRangeConfigurationIsRefused() throws {
        let directory = try TemporaryDirectory()
        var polling = DefaultsStore.Configuration()
        polling.externalChangeDetection = .polling(interval: .zero)
        var busy = DefaultsStore.Configuration()
        busy.busyTimeout = .seconds(-1)
        for configuration in [polling, busy] {
            let error = #expect(throws: DefaultsError.self) { try DefaultsStore(path: directory.database, configuration: configuration) }
            #expect(error?.code == .invalidConfiguration)
            let memory = #expect(throws: DefaultsError.self) { try DefaultsStore.inMemory(configuration: configuration) }
            #expect(memory?.code == .invalidConfiguration)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.database))
    }
}
