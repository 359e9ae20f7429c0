import Foundation
import PostgresNIO
import SQLiteDefaultsPostgres
import Synchronization

/// The benchmark's own connections to the server, apart from the machines': a listener that
/// notes when each notification of the fleet's table arrives (when a push committed), and the
/// floor of the A → B latency, the library's PostgreSQL protocol done with postgres-nio alone.
final class Probe: Sendable {
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>

    init(url: PostgresURL, logger: Logger) {
        let client = PostgresClient(configuration: url.configuration)
        self.client = client
        self.logger = logger
        running = Task { await client.run() }
    }

    func stop() async {
        running.cancel()
        await running.value
    }

    /// The server's `version()`.
    func serverVersion() async throws -> String {
        try await client.withConnection { connection in
            let rows = try await connection.query("SHOW server_version", logger: logger)
            for try await version in rows.decode(String.self) { return version }
            return "?"
        }
    }

    /// Runs statements on a connection of its own (DDL, checks between rounds).
    func execute(_ sql: String) async throws {
        _ = try await client.withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }

    /// The integer value of `key` in a fleet table, nil when there is no such row.
    func integer(of key: String, in table: String) async throws -> Int64? {
        try await client.withConnection { connection in
            let rows = try await connection.query(PostgresQuery(
                unsafeSQL: "SELECT integer_value FROM \(table) WHERE key = $1", binds: Self.binds(key)), logger: logger)
            for try await value in rows.decode(Int64?.self) { return value }
            return nil
        }
    }

    /// `SELECT max(version)` of a fleet table: how many pushes it took.
    func maximumVersion(in table: String) async throws -> Int64 {
        try await client.withConnection { connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT coalesce(max(version), 0) FROM \(table)"), logger: logger)
            for try await value in rows.decode(Int64.self) { return value }
            return 0
        }
    }

    /// The server's processes: every backend and background process `pg_stat_activity`
    /// shows (the postmaster itself aside), for their CPU time.
    func serverPIDs() async throws -> [Int32] {
        try await client.withConnection { connection in
            let rows = try await connection.query("SELECT pid FROM pg_stat_activity", logger: logger)
            var pids: [Int32] = []
            for try await pid in rows.decode(Int32.self) { pids.append(pid) }
            return pids
        }
    }

    static func binds(_ text: String) -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(text)
        return binds
    }

    static func binds(_ number: Int64) -> PostgresBindings {
        var binds = PostgresBindings(capacity: 1)
        binds.append(number)
        return binds
    }
}

/// A connection of the probe's that `LISTEN`s on a channel and notes when each notification
/// arrives; `onEach` (optional) runs on the same connection after each one is noted.
final class NotificationLog: Sendable {
    struct Entry: Sendable {
        let payload: String
        let at: ContinuousClock.Instant
    }

    private final class State: Sendable {
        let entries = Mutex<[Entry]>([])
        let ready = Mutex(false)
        let failure = Mutex<String?>(nil)
    }

    private let state = State()
    private let task: Task<Void, Never>

    init(probe: Probe, channel: String,
         onEach: (@Sendable (PostgresNotification, PostgresConnection) async throws -> Void)? = nil) {
        let state = state
        task = Task {
            do {
                try await probe.client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        state.ready.withLock { $0 = true }
                        for try await notification in notifications {
                            let now = ContinuousClock.now
                            state.entries.withLock { $0.append(Entry(payload: notification.payload, at: now)) }
                            try await onEach?(notification, connection)
                        }
                    }
                }
            } catch {
                if !Task.isCancelled { state.failure.withLock { $0 = "\(error)" } }
            }
        }
    }

    /// Waits until `LISTEN` ran.
    func ready(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while !state.ready.withLock({ $0 }) {
            if let failure = state.failure.withLock({ $0 }) { throw BenchFailure("LISTEN failed: \(failure)") }
            if ContinuousClock.now > deadline { throw BenchFailure("LISTEN did not start within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func reset() { state.entries.withLock { $0.removeAll() } }

    var entries: [Entry] { state.entries.withLock { $0 } }

    /// The first notification noted at or after `instant`.
    func first(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        state.entries.withLock { $0.first { $0.at >= instant }?.at }
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

/// The floor of write on A → observer on B: the library's PostgreSQL protocol with postgres-nio
/// alone, no SQLite on either side. A writer connection runs the library's push transaction
/// (`BEGIN`; `LOCK TABLE … IN SHARE ROW EXCLUSIVE MODE`; one statement that picks
/// `max(version) + 1`, upserts and calls `pg_notify`; `COMMIT`) on a table of the same shape; a reader connection `LISTEN`s, and on
/// each notification runs the library's fetch (`SELECT … WHERE version > $1 ORDER BY version,
/// key`) on the same connection, and notes when the value arrived.
final class Floor: Sendable {
    let table: String
    let arrivals = Arrivals()
    private let probe: Probe
    private let reader: NotificationLog

    init(probe: Probe, table: String) async throws {
        self.probe = probe
        self.table = table
        try await probe.execute("""
            CREATE TABLE \(table) (
                key TEXT PRIMARY KEY,
                storage_class TEXT NOT NULL,
                integer_value BIGINT,
                real_value DOUBLE PRECISION,
                bytes_value BYTEA,
                version BIGINT NOT NULL,
                origin TEXT NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """)
        try await probe.execute("CREATE INDEX \(table)_version ON \(table) (version)")
        let arrivals = arrivals
        let position = Mutex<Int64>(0)
        let logger = probe.logger
        reader = NotificationLog(probe: probe, channel: table) { _, connection in
            let after = position.withLock { $0 }
            let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                SELECT key, storage_class, integer_value, real_value, bytes_value, version
                FROM \(table) WHERE version > $1 ORDER BY version, key
                """, binds: Probe.binds(after)), logger: logger)
            var last = after
            var values: [Int64] = []
            for try await (_, _, integer, _, _, version) in rows.decode((String, String, Int64?, Double?, ByteBuffer?, Int64).self) {
                if let integer { values.append(integer) }
                last = version
            }
            let now = ContinuousClock.now
            position.withLock { $0 = last }
            for value in values { arrivals.record(value, at: now) }
        }
        try await reader.ready(timeout: .seconds(30))
    }

    /// Pushes `value` under `key` as the library does, on `connection` (the writer's).
    func push(_ value: Int64, key: String, on connection: PostgresConnection) async throws {
        let logger = probe.logger
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN SHARE ROW EXCLUSIVE MODE"), logger: logger)
            var binds = PostgresBindings(capacity: 5)
            binds.append("floor-writer")
            binds.append(table)
            binds.append(key)
            binds.append("integer")
            binds.append(value)
            // One statement picks the version, upserts and queues the notification, as the
            // library's push does.
            try await connection.query(PostgresQuery(unsafeSQL: """
                WITH next AS (SELECT coalesce(max(version), 0) + 1 AS version FROM \(table)),
                written AS (
                    INSERT INTO \(table) (key, storage_class, integer_value, real_value, bytes_value, version, origin, updated_at)
                    SELECT $3::text, $4::text, $5::bigint, NULL, NULL, (SELECT version FROM next), $1, now()
                    ON CONFLICT (key) DO UPDATE SET storage_class = excluded.storage_class, integer_value = excluded.integer_value,
                        real_value = excluded.real_value, bytes_value = excluded.bytes_value, version = excluded.version,
                        origin = excluded.origin, updated_at = excluded.updated_at
                    RETURNING 1)
                SELECT next.version FROM next, LATERAL (SELECT pg_notify($2, next.version::text)) AS notified
                """, binds: binds), logger: logger)
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    func stop() async { await reader.stop() }
}
