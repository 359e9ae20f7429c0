#if Fleet
import CoreMetrics
import Foundation

/// The sync's swift-metrics, made once per sync (never on the store's `get`/`set` path: they
/// are touched only by the sync's own task, per push, apply or connection change). Every metric
/// carries the dimension `table` (the name as given to the sync).
///
/// | name | kind | what |
/// | --- | --- | --- |
/// | `sqlitedefaults_fleet_pushes_total` | counter | pushes committed in PostgreSQL |
/// | `sqlitedefaults_fleet_pushed_rows_total` | counter | rows those pushes wrote |
/// | `sqlitedefaults_fleet_applied_rows_total` | counter | rows from other machines applied to the file (refused rows not counted) |
/// | `sqlitedefaults_fleet_refused_rows_total` | counter | rows not taken: keys that cannot travel (NUL in the key, once per key and session), and rows from other machines the file refuses (its declarations, or a constraint of its database) |
/// | `sqlitedefaults_fleet_fetches_total` | counter | fetches of the table (catch-up, safety, a notification that did not carry its rows) |
/// | `sqlitedefaults_fleet_retries_total` | counter | sessions that failed (lost, stalled, timed out) and are retried with back-off; the client's pool retries refused connections quietly, which shows as `connected` 0 |
/// | `sqlitedefaults_fleet_connected` | gauge | 1 while connected and in step, else 0 |
/// | `sqlitedefaults_fleet_apply_lag_seconds` | timer | from a push's commit in PostgreSQL (its clock) to its apply here (this machine's clock), for rows a notification carried |
struct SyncMetrics: Sendable {
    let pushes: Counter
    let pushedRows: Counter
    let appliedRows: Counter
    let refusedRows: Counter
    let fetches: Counter
    let retries: Counter
    let connected: Gauge
    let lag: CoreMetrics.Timer

    static let prefix = "sqlitedefaults_fleet_"

    init(table: String, factory: any MetricsFactory) {
        let dimensions = [("table", table)]
        func counter(_ name: String) -> Counter {
            Counter(label: Self.prefix + name, dimensions: dimensions, factory: factory)
        }
        pushes = counter("pushes_total")
        pushedRows = counter("pushed_rows_total")
        appliedRows = counter("applied_rows_total")
        refusedRows = counter("refused_rows_total")
        fetches = counter("fetches_total")
        retries = counter("retries_total")
        connected = Gauge(label: Self.prefix + "connected", dimensions: dimensions, factory: factory)
        lag = CoreMetrics.Timer(label: Self.prefix + "apply_lag_seconds", dimensions: dimensions,
                                preferredDisplayUnit: .seconds, factory: factory)
        connected.record(0)
    }

    func pushed(_ rows: Int) {
        pushes.increment()
        pushedRows.increment(by: rows)
    }

    func applied(_ rows: Int, committedMicroseconds: Int64?) {
        appliedRows.increment(by: rows)
        guard let committedMicroseconds else { return }
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        // Clocks of two machines: a negative lag is skew, recorded as none.
        lag.recordMicroseconds(max(0, now - committedMicroseconds))
    }

    func refused(_ rows: Int) {
        if rows > 0 { refusedRows.increment(by: rows) }
    }

    func fetched() { fetches.increment() }

    func retried() { retries.increment() }

    func connection(_ isConnected: Bool) { connected.record(isConnected ? 1 : 0) }
}
#endif
