import CoreMetrics

/// The engine's swift-metrics, made once per store from
/// ``DefaultsStore/Configuration/metricsFactory`` (the process's `MetricsSystem` factory when
/// nil, which does nothing until the application bootstraps a backend). Every store of the
/// process reports under the same names, without dimensions: a backend sums them, and a label
/// per file would grow without bound with the number of files.
///
/// | name | kind | what |
/// | --- | --- | --- |
/// | `sqlitedefaults_commits_total` | counter | this process's committed writes (a `set`, a `remove`, a transaction that wrote) |
/// | `sqlitedefaults_external_changes_total` | counter | keys whose value another connection, process or client changed, as this process's stores noticed them |
/// | `sqlitedefaults_monitor_look_seconds` | timer | how long one look for other connections' commits took (`data_version`, the change log, the rows read again) |
///
/// The cost on the write path is one call to the counter's handler per commit (nothing is
/// recorded on reads); the monitor's look pays two clock readings.
struct EngineMetrics: Sendable {
    let commits: Counter
    let externalChanges: Counter
    let look: CoreMetrics.Timer

    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        commits = Counter(label: "sqlitedefaults_commits_total", dimensions: [], factory: factory)
        externalChanges = Counter(label: "sqlitedefaults_external_changes_total", dimensions: [], factory: factory)
        look = CoreMetrics.Timer(label: "sqlitedefaults_monitor_look_seconds", dimensions: [],
                                 preferredDisplayUnit: .seconds, factory: factory)
    }
}
