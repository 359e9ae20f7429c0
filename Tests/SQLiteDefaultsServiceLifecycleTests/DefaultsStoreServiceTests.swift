#if ServiceLifecycle
import DefaultsTestSupport
import Logging
import SQLiteDefaults
import SQLiteDefaultsServiceLifecycle
import ServiceLifecycle
import Testing
import TestScheduling

/// A service that records that it runs, then waits for graceful shutdown, and reads the store
/// while it drains: the store must still be open then.
private struct Reader: Service {
    let store: DefaultsStore
    let running: Collected<Bool>
    let readWhileDraining: Collected<Int>

    func run() async throws {
        running.append(true)
        try? await gracefulShutdown()
        readWhileDraining.append(try store.value(for: DefaultsKey<Int>("n", default: -1)))
    }
}

/// The store's service next to a `Reader`, with no signal handling (the tests end the group).
private func serviceGroup(_ store: DefaultsStore, running: Collected<Bool>, drained: Collected<Int>) -> ServiceGroup {
    ServiceGroup(
        services: [DefaultsStoreService(store: store), Reader(store: store, running: running, readWhileDraining: drained)],
        gracefulShutdownSignals: [],
        logger: Logger(label: "test")
    )
}

@Suite("DefaultsStoreService", .offThePool)
struct DefaultsStoreServiceTests {
    @Test("inside a ServiceGroup: open while running, closed after graceful shutdown, readable while later services drain")
    func gracefulShutdownClosesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.set(3, for: DefaultsKey<Int>("n", default: 0))
        let running = Collected<Bool>(), drained = Collected<Int>()
        let updatesEnded = Collected<Bool>()
        let updates = Task {
            for await _ in store.updates(DefaultsKey<Int>("n", default: 0)) {}
            updatesEnded.append(true)
        }
        let group = serviceGroup(store, running: running, drained: drained)
        let run = Task { try await group.run() }
        #expect(await running.waitAsync { !$0.isEmpty })
        #expect(!store.isClosed)
        await group.triggerGracefulShutdown()
        try await run.value
        #expect(store.isClosed)
        #expect(drained.all == [3])
        #expect(await updatesEnded.waitAsync { !$0.isEmpty })
        #expect(throws: DefaultsError.self) { try store.value(for: DefaultsKey<Int>("n", default: 0)) }
        _ = await updates.value
    }

    @Test("cancelling the group also closes the store")
    func cancellationClosesTheStore() async throws {
        let store = try DefaultsStore.inMemory()
        let running = Collected<Bool>(), drained = Collected<Int>()
        let group = serviceGroup(store, running: running, drained: drained)
        let run = Task { try await group.run() }
        #expect(await running.waitAsync { !$0.isEmpty })
        run.cancel()
        _ = try? await run.value
        #expect(store.isClosed)
    }
}
#endif
