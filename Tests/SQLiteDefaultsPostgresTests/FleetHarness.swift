#if Fleet && Prefs
import CoreMetrics
import DefaultsTestSupport
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Synchronization
import Testing

/// Short retries and safety fetches, so tests that stop the server do not wait 5 s per retry.
extension DefaultsPostgresSync.Timing {
    static let test = DefaultsPostgresSync.Timing(operationTimeout: .seconds(20), safetyFetchInterval: .seconds(1),
                                                  minimumPushInterval: .milliseconds(10),
                                                  firstRetryDelay: .milliseconds(50), longestRetryDelay: .milliseconds(500))
}

/// Log lines a test can read.
final class CollectingLogHandler: LogHandler, @unchecked Sendable {
    // @unchecked: `lines` is itself thread-safe (a Collected); metadata and logLevel are
    // value copies that swift-log never shares between threads.
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = ProcessInfo.processInfo.environment["FLEET_DEBUG"] != nil ? .trace : .info
    let lines: Collected<String>
    let stamped: Collected<StampedLine>?

    init(lines: Collected<String>, stamped: Collected<StampedLine>? = nil) {
        self.lines = lines
        self.stamped = stamped
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let now = ContinuousClock.now
        let line = "\(now) \(event.level): \(event.message) \(event.metadata ?? [:])"
        lines.append(line)
        stamped?.append(StampedLine(instant: now, line: line))
    }
}

/// A log line and the instant it was logged: when the product spoke, not when a test that
/// polls for the line (itself waiting for a core on a loaded machine) noticed it.
struct StampedLine: Sendable {
    let instant: ContinuousClock.Instant
    let line: String
}

/// One machine of a test fleet: its own SQLite file and store, its own PostgreSQL client,
/// and a sync running in a task of its own.
final class Machine: Sendable {
    let path: String
    let store: DefaultsStore
    let sync: DefaultsPostgresSync
    let log = Collected<String>()
    /// The same lines with the instant each was logged.
    let stampedLog = Collected<StampedLine>()
    private let task: Task<Void, any Error>

    /// - Parameter diagnoses: whether the sync is given the server's URL, to ask PostgreSQL
    ///   itself why the client lends no connection (as `prefs sync` does).
    init(path: String, url: String, table: String = "defaults_fleet", store: DefaultsStore? = nil,
         timing: DefaultsPostgresSync.Timing = .test, metricsFactory: (any MetricsFactory)? = nil,
         diagnoses: Bool = false, relays: [String] = []) throws {
        self.path = path
        let store = try store ?? DefaultsStore(path: path)
        self.store = store
        let serverURL = try PostgresURL(url)
        let client = PostgresClient(configuration: serverURL.configuration)
        let lines = log, stamped = stampedLog
        let logger = Logger(label: "fleet-test") { _ in CollectingLogHandler(lines: lines, stamped: stamped) }
        // Relayed: pushes through the pooler need no session function (as the public initializer sets).
        var timing = timing
        if !relays.isEmpty { timing.pushesInOneRoundTrip = false }
        let sync = DefaultsPostgresSync(store: store, client: client, table: table, logger: logger, timing: timing,
                                        metricsFactory: metricsFactory, serverURL: diagnoses ? serverURL : nil,
                                        relays: try relays.map(PostgresURL.init))
        self.sync = sync
        let finished = finished
        task = Task {
            defer { finished.append(true) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                group.addTask { try await sync.run() }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }

    /// Waits until the sync is connected and caught up.
    func connected(timeout: Duration = .seconds(60)) async -> Bool {
        await waitUntil(timeout: timeout) { sync.isConnected }
    }

    /// Stops the sync and its client; returns what `run()` threw, if anything. A sync that does
    /// not end within 30 s of its cancellation is a failed expectation (and its log is shown).
    @discardableResult
    func stop(sourceLocation: SourceLocation = #_sourceLocation) async -> (any Error)? {
        task.cancel()
        guard await waitUntil(timeout: .seconds(30), { finished.count > 0 }) else {
            Issue.record("the sync of \(path) did not stop when cancelled; its log: \(log.all)", sourceLocation: sourceLocation)
            return nil
        }
        do {
            try await task.value
            return nil
        } catch {
            return error
        }
    }

    /// What `run()` threw, waiting for it to end on its own; nil when it did not end in time.
    func failure(timeout: Duration = .seconds(60)) async -> (any Error)? {
        guard await waitUntil(timeout: timeout, { finished.count > 0 }) else { return nil }
        return await stop()
    }

    /// Whether the sync's task has ended.
    var hasEnded: Bool { finished.count > 0 }
    private let finished = Collected<Bool>()

    /// The row of `key`, found by its bytes (Swift's `==` would take "e" + U+0301 for "é").
    subscript(key: String) -> SQLiteValue? {
        (try? store.entries().first { $0.key.utf8.elementsEqual(key.utf8) }?.value) ?? nil
    }
}

/// The store's rows as comparable text (storage class and exact bits).
func snapshot(_ store: DefaultsStore) throws -> [String: String] {
    var rows: [String: String] = [:]
    for entry in try store.entries() { rows[entry.key] = canonical(entry.value) }
    return rows
}

/// A server for one test, removed when the test ends (awaited: `pg_ctl stop` waits for the
/// server to exit, which must not hold a thread of the cooperative pool).
func withServer<Result>(tls: Bool = false, _ body: (PostgresServer) async throws -> Result) async throws -> Result {
    let server = try await PostgresServer.start(tls: tls)
    let result: Result
    do {
        result = try await body(server)
    } catch {
        await server.remove()
        throw error
    }
    await server.remove()
    return result
}

extension DefaultsKey where Value == SQLiteValue {
    /// An untyped key: any storage class, as stored.
    static func raw(_ name: String) -> DefaultsKey<SQLiteValue> { DefaultsKey<SQLiteValue>(name, default: .null) }
}

/// Two machines, `a` and `b`, on files of their own, connected to a server of their own; both
/// syncs are stopped (and must stop) after `body`, and the server is removed.
func withPair(timing: DefaultsPostgresSync.Timing = .test,
              _ body: (PostgresServer, Machine, Machine) async throws -> Void) async throws {
    try await withServer { server in
        let directory = try TemporaryDirectory()
        let a = try Machine(path: directory.path + "/a.sqlite", url: server.url(), timing: timing)
        let b = try Machine(path: directory.path + "/b.sqlite", url: server.url(), timing: timing)
        #expect(await a.connected())
        #expect(await b.connected())
        try await body(server, a, b)
        await a.stop()
        await b.stop()
        withExtendedLifetime(directory) {}
    }
}
#endif
