import Foundation
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres
import Synchronization

/// One machine of the benchmark's fleet: its own SQLite file and store, its own
/// `PostgresClient`, and a `DefaultsPostgresSync` run next to the client in a task of its own
/// (as a service group would run them).
final class Machine: Sendable {
    let name: String
    let store: DefaultsStore
    let sync: DefaultsPostgresSync
    private let task: Task<Void, Never>
    private let outcome: Outcome

    /// How the machine's task ended, once it did.
    private final class Outcome: Sendable {
        let ended = Mutex<String?>(nil)
    }

    init(name: String, directory: String, url: PostgresURL, table: String, logger: Logger) throws {
        self.name = name
        let store = try DefaultsStore(path: directory + "/" + name + ".sqlite")
        self.store = store
        let client = PostgresClient(configuration: url.configuration)
        let sync = DefaultsPostgresSync(store: store, client: client, table: table, logger: logger)
        self.sync = sync
        let outcome = Outcome()
        self.outcome = outcome
        task = Task {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await client.run() }
                    group.addTask { try await sync.run() }
                    defer { group.cancelAll() }
                    try await group.next()
                }
                outcome.ended.withLock { $0 = $0 ?? "ended" }
            } catch {
                outcome.ended.withLock { $0 = "\(error)" }
            }
        }
    }

    /// Waits until the sync is connected and caught up with the table.
    func connected(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while !sync.isConnected {
            if let ended = outcome.ended.withLock({ $0 }) {
                throw BenchFailure("machine \(name): the sync ended before it connected: \(ended)")
            }
            if ContinuousClock.now > deadline {
                throw BenchFailure("machine \(name): the sync did not connect within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Stops the sync and its client, then closes the store.
    func stop() async {
        task.cancel()
        await task.value
        try? store.close()
    }
}
