#if Fleet
import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import SQLiteDefaults
import Synchronization

/// Keeps a store in step with the other machines of a fleet through a PostgreSQL table: a
/// swift-service-lifecycle `Service`.
///
/// ```swift
/// let client = PostgresClient(configuration: try PostgresURL("postgres://app@db:5432/prefs").configuration)
/// let sync = DefaultsPostgresSync(store: store, client: client)   // table "defaults_fleet"
/// let group = ServiceGroup(services: [client, sync], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// Every machine keeps its own SQLite file: reads stay local and work offline. The store's
/// commits (its own, other processes', the `sqlite3` shell's) are pushed to the table; other
/// machines hear of them through `LISTEN`/`NOTIFY` (whose payload carries the rows when they
/// fit; else they fetch what is new) and apply them to their file in one transaction, so their
/// observers fire as for any external change.
///
/// A push is one round trip (a session function in `pg_temp`, falling back to four when
/// PostgreSQL refuses it), and a write reaches another machine about one and a half round trips
/// after its commit. The sync reports swift-metrics through `MetricsSystem` (names in the
/// fleet's documentation, `sqlitedefaults_fleet_…`).
///
/// - All replicas converge to the last write in PostgreSQL's commit order; deletes propagate;
///   storage classes survive exactly.
/// - A value applied from PostgreSQL is never pushed back.
/// - While PostgreSQL is unreachable, local reads and writes go on. What was written is found
///   again by comparing the file with its record of the fleet's table, and pushed when the
///   server returns, even after a crash: the file is the outbox.
/// - A file joining a fleet for the first time (or a new table) takes the fleet's values for
///   the keys the table has, then pushes the keys only it has.
/// - A table gone back in time (PostgreSQL restored from a backup, a failover to a replica
///   that lagged) is noticed when the sync connects, and rejoined: its newer rows are taken,
///   and what it lost is pushed again.
/// - The table is named as PostgreSQL resolves it (`spell` is `public.spell`): one channel and
///   one creation lock per table, however it is spelled.
///
/// The sync creates the table when missing, and two tables of its own in the SQLite file
/// (`defaults_fleet_shadow`, `defaults_fleet_state`). Run one sync per file.
public final class DefaultsPostgresSync: Service, Sendable {
    /// The store kept in step.
    public let store: DefaultsStore
    /// The client the sync leases its one connection from; run it in the same service group.
    public let client: PostgresClient
    /// The PostgreSQL table, `TABLE` or `SCHEMA.TABLE`.
    public let table: String
    /// The relays the sync listens on, in a relayed fleet (see ``DefaultsFleetRelay``); empty
    /// when it listens on `client`'s server, the primary.
    public let relays: [PostgresURL]
    /// The relay the current (or next) session listens on, an index into ``relays``.
    let relayIndex: Mutex<Int>

    let logger: Logger
    let origin: String
    let signals = SyncSignals()
    let status = StepStatus()
    /// The server's URL, when the caller gave it: while the client lends no connection, the
    /// sync asks PostgreSQL itself why (see `diagnose()`).
    let serverURL: PostgresURL?
    /// Set while the store's file must be taken as it is (see `init(store:client:table:logger:adoptingLocalValues:)`): cleared
    /// once a session has compared it with the table and pushed its differences.
    let adoptionPending: Mutex<Bool>
    let timing: Timing
    /// The swift-metrics this sync reports (see ``SyncMetrics``).
    let metrics: SyncMetrics

    /// What the sync last reported (see ``StepStatus``).
    typealias Status = StepStatus.State

    /// Time-outs and back-off; the tests shorten them.
    struct Timing: Sendable {
        /// The longest a PostgreSQL round of work (a fetch, a push) may take before the
        /// connection is given up as dead (a stopped server keeps TCP open).
        var operationTimeout: Duration = .seconds(30)
        /// The longest a small round of work after catching up (a push of a few rows, a fetch
        /// after a notification, the safety fetch) may go unanswered before the connection is
        /// given up: a path cut without a reset (a partition, a dropped route) is noticed within
        /// it, and a new connection is tried, instead of waiting for TCP's retransmissions,
        /// which back off to many seconds apart.
        var stallTimeout: Duration = .seconds(3)
        /// How often the sync fetches without a notification: a net under `LISTEN`, and the
        /// check that the connection still works.
        var safetyFetchInterval: Duration = .seconds(5)
        /// In a relayed fleet, how often the sync fetches from the primary although its relay
        /// says nothing is new: the check that the table is still the one it is in step with
        /// (not dropped, not gone back in time), and a bound on how long a relay that stopped
        /// replicating can keep a machine behind. The safety fetch itself asks the relay.
        var primaryCheckInterval: Duration = .seconds(60)
        /// The shortest time between two pushes while changes keep coming: a stream of writes
        /// goes out in fewer, larger pushes (less work for both sides), and a write after a
        /// quiet spell is pushed at once.
        var minimumPushInterval: Duration = .milliseconds(10)
        var firstRetryDelay: Duration = .milliseconds(100)
        var longestRetryDelay: Duration = .seconds(5)
        /// Whether pushes go through the session's function (one round trip) when PostgreSQL
        /// allows it; off, every push takes four (what the tests compare against).
        var pushesInOneRoundTrip = true
        /// Whether rows a notification carries are applied without a fetch; off, every
        /// notification from another machine is followed by a fetch.
        var appliesCarriedRows = true
        /// The longest the sync stays out of step without a line saying so: then it says why
        /// (a connection the client's pool does not lend, with PostgreSQL's own reason when it
        /// knows the server's URL). With ``diagnosisTimeout``, under the 5 s an operator waits.
        var silenceLimit: Duration = .seconds(3)
        /// The longest the sync waits for PostgreSQL to answer a connection of its own when it
        /// asks why the client lends none.
        var diagnosisTimeout: Duration = .milliseconds(1_500)
    }

    /// Creates the sync; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - store: the store to keep in step; an in-memory store works too (but forgets
    ///     what it did not push when it goes away).
    ///   - client: the PostgreSQL client; the caller runs it (`client.run()`, or in a
    ///     `ServiceGroup`).
    ///   - table: the fleet's table, `TABLE` or `SCHEMA.TABLE`: letters, digits and `_`.
    ///     An invalid name makes ``run()`` throw `.invalidConfiguration`.
    ///   - logger: where the sync logs, one line per change of state (connected, unreachable
    ///     and why), never one per retry.
    ///   - serverURL: the URL the client was made from, if it was. The client's pool retries a
    ///     refused connection quietly (for up to a minute before it fails the request); a sync
    ///     out of step for 3 s without a line saying why then connects once on its own, to log
    ///     PostgreSQL's own reason ("remaining connection slots are reserved…"). Without it the
    ///     line says that the client lends no connection.
    public convenience init(store: DefaultsStore, client: PostgresClient, table: String = "defaults_fleet",
                            logger: Logger = Logger(label: "SQLiteDefaultsPostgres"), serverURL: PostgresURL? = nil) {
        self.init(store: store, client: client, table: table, logger: logger, timing: Timing(), serverURL: serverURL)
    }

    /// Creates a sync that takes the store's file as it is: its rows that differ from the
    /// table are pushed, whatever the file's own record of the fleet says, and keys only the
    /// table has are taken from it. For a file put in place of the one a sync had (`prefs
    /// sync` following a database replaced by `mv`).
    package convenience init(store: DefaultsStore, client: PostgresClient, table: String, logger: Logger,
                             adoptingLocalValues: Bool, serverURL: PostgresURL? = nil) {
        self.init(store: store, client: client, table: table, logger: logger, timing: Timing(),
                  adoptingLocalValues: adoptingLocalValues, serverURL: serverURL)
    }

    /// Creates the sync of a machine in a relayed fleet (see ``DefaultsFleetRelay``): it
    /// pushes and fetches through `client`, a pooler in front of the primary (PgBouncer in
    /// transaction mode, or the primary itself), and listens on one of `relays`, with a
    /// connection of its own (the sync runs a client for it while it runs).
    ///
    /// Each machine starts with the relay its origin (host and path) picks, so a fleet spreads
    /// evenly over them, and moves to the next when that one fails. Its safety fetch asks the
    /// relay for the newest version and fetches from the primary only when the relay has news
    /// this machine did not hear of (and once a minute, to check the table itself). Pushes take
    /// four short statements in one transaction, since a pooler shares server connections
    /// between transactions and cannot keep a session's function.
    ///
    /// - Parameters:
    ///   - store: the store to keep in step.
    ///   - client: the pooler's (or primary's) client; the caller runs it.
    ///   - relays: the relays' URLs (an empty list makes this the single-server sync of
    ///     ``init(store:client:table:logger:serverURL:)``). A relay that refuses a connection is
    ///     asked why, as the pooler is, and the line says so in PostgreSQL's words.
    ///   - table: the fleet's table, as on the primary; each relay holds a copy of that name.
    ///   - logger: where the sync logs.
    ///   - serverURL: the pooler's URL, to ask it why it lends no connection (see the other initializer).
    public convenience init(store: DefaultsStore, client: PostgresClient, relays: [PostgresURL], table: String = "defaults_fleet",
                            logger: Logger = Logger(label: "SQLiteDefaultsPostgres"), serverURL: PostgresURL? = nil) {
        var timing = Timing()
        timing.pushesInOneRoundTrip = relays.isEmpty
        self.init(store: store, client: client, table: table, logger: logger, timing: timing, serverURL: serverURL, relays: relays)
    }

    /// `prefs sync --relay`: a relayed sync that may take the file as it is.
    package convenience init(store: DefaultsStore, client: PostgresClient, relays: [PostgresURL], table: String, logger: Logger,
                             adoptingLocalValues: Bool, serverURL: PostgresURL? = nil) {
        var timing = Timing()
        timing.pushesInOneRoundTrip = relays.isEmpty
        self.init(store: store, client: client, table: table, logger: logger, timing: timing,
                  adoptingLocalValues: adoptingLocalValues, serverURL: serverURL, relays: relays)
    }

    init(store: DefaultsStore, client: PostgresClient, table: String, logger: Logger, timing: Timing,
         adoptingLocalValues: Bool = false, metricsFactory: (any MetricsFactory)? = nil, serverURL: PostgresURL? = nil,
         relays: [PostgresURL] = []) {
        self.relays = relays
        metrics = SyncMetrics(table: table, factory: metricsFactory ?? MetricsSystem.factory)
        adoptionPending = Mutex(adoptingLocalValues)
        self.store = store
        self.client = client
        self.table = table
        self.logger = logger
        self.timing = timing
        self.serverURL = serverURL
        origin = "\(ProcessInfo.processInfo.hostName):\(store.path ?? "memory")"
        // The relay this machine's origin picks: a fleet spreads evenly over its relays.
        relayIndex = Mutex(relays.isEmpty ? 0 : Int(FleetTableName.fnv1a(origin) % UInt64(relays.count)))
    }

    /// Whether the sync holds a working connection and has caught up with the table since it
    /// connected (the initial comparison and fetch are done).
    public var isConnected: Bool { status.isConnected }

    /// Runs until cancelled or until graceful shutdown, then returns. While PostgreSQL
    /// cannot be reached (refused, timed out, restarting, the connection lost), it retries with
    /// back-off, 0.1 s growing to 5 s apart, and logs one line when that starts, with
    /// PostgreSQL's reason; one line again when it is in step. Out of step for 3 s with nothing
    /// said (the client's pool retrying a refused connection quietly), it says why.
    /// A table dropped and created again, or gone back in time, is found by the next fetch (at
    /// most the safety interval, 5 s, away) and joined again, with one line.
    ///
    /// - Throws: `DefaultsError` for what retrying cannot cure — `.invalidConfiguration`
    ///   (an invalid table name), `.remoteRejected` (bad credentials, no such database, no
    ///   permission to create or write the table), `.incompatibleTable` (a table of another
    ///   shape), `.closed` (the store was closed), `.databaseReplaced` (its file was moved
    ///   over or deleted: open a new store and a new sync), or the store's own failure when the
    ///   SQLite file cannot be read or written. In a `ServiceGroup` a thrown error shuts the group
    ///   down unless the service is configured with `failureTerminationBehavior: .ignore`,
    ///   which keeps a server running on its local preferences.
    public func run() async throws {
        let name = try FleetTableName(table)
        let fleet = FleetTable(name: name, logger: logger)
        let replica = LocalReplica(store: store)
        let observation = store.observe { [signals] change in signals.localChange(change.key) }
        defer { observation.cancel() }
        // One connection to the relay at a time: a client of its own each, run here.
        let relayClients = relays.map { url in
            var configuration = url.configuration
            configuration.options.minimumConnections = 0
            configuration.options.maximumConnections = 1
            return PostgresClient(configuration: configuration, backgroundLogger: Self.quietLogger)
        }
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for relay in relayClients { group.addTask { await relay.run() } }
                    group.addTask { try await self.runSessions(fleet: fleet, replica: replica, relays: relayClients) }
                    group.addTask { try await self.watchStep(table: name) }
                    // Only the sessions end (the watch and the relays' clients run until cancelled).
                    defer { group.cancelAll() }
                    try await group.next()
                }
            }
        } catch is CancellationError {
            return
        } catch {
            if Task.isCancelled { return }
            throw error
        }
    }

    private func runSessions(fleet: FleetTable, replica: LocalReplica, relays: [PostgresClient]) async throws {
        var delay = timing.firstRetryDelay
        while true {
            try Task.checkCancellation()
            do {
                try await client.withConnection { connection in
                    do {
                        if relays.isEmpty {
                            self.status.holdsConnection = true
                            defer { self.status.holdsConnection = false }
                            try await self.session(on: connection, listeningOn: nil, fleet: fleet, replica: replica)
                        } else {
                            let relay = relays[self.relayIndex.withLock { $0 }]
                            try await self.relaySession(on: connection, relay: relay, fleet: fleet, replica: replica)
                        }
                    } catch {
                        // A connection that failed or timed out mid-work may be in any state:
                        // the pool must not lend it again.
                        if !Task.isCancelled { try? await connection.close() }
                        throw error
                    }
                }
            } catch {
                if !relays.isEmpty, error is RelayFailure { relayIndex.withLock { $0 = ($0 + 1) % relays.count } }
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                if error is FleetTableChanged {
                    // Not in step until the next session has joined the table again (it says so).
                    _ = report(.starting)
                    delay = timing.firstRetryDelay
                    try await Task.sleep(for: delay)
                    continue
                }
                var failure = FleetFailure.classify(error)
                // Only what a retry may cure is retried; the rest ends `run()` (thrown, not
                // logged: the caller decides what to say).
                guard failure.code == .unreachable else { throw failure }
                metrics.retried()
                if status.state != .failing(.unreachable), FleetFailure.isFromPool(error), let found = await diagnose() {
                    // The pool gave up after retrying quietly, and says nothing of why: PostgreSQL does.
                    failure = DefaultsError(.unreachable, found.message)
                } else if status.state != .failing(.unreachable), let relayed = error as? RelayFailure,
                          FleetFailure.isFromPool(relayed.cause), let found = await diagnoseRelay() {
                    failure = DefaultsError(.unreachable, found.message)
                }
                if report(.failing(failure.code)) {
                    logger.warning("fleet sync: \(failure.message); retrying with back-off", metadata: ["table": "\(fleet.name)"])
                    delay = timing.firstRetryDelay
                }
                // Jittered: machines a restart disconnected together come back spread over the
                // interval instead of all at once.
                try await Task.sleep(for: Self.jittered(delay))
                delay = min(delay * 2, timing.longestRetryDelay)
            }
        }
    }

    /// Records a new state; true when it differs from the last one reported.
    func report(_ new: Status) -> Bool {
        metrics.connection(new == .connected)
        return status.enter(new)
    }

    /// A duration drawn evenly from its upper half: retries and periodic checks of many
    /// machines that started together drift apart instead of arriving together.
    static func jittered(_ duration: Duration) -> Duration {
        duration * Double.random(in: 0.5...1.0)
    }

    /// One connection's life: listen (on `listener`, a relay's connection, when given; else on
    /// `connection`), catch up both ways, then push and fetch as signalled, until a connection
    /// fails or the sync is cancelled.
    func session(on connection: PostgresConnection, listeningOn listener: PostgresConnection?, fleet: FleetTable,
                 replica: LocalReplica) async throws {
        // The name as PostgreSQL resolves it: however the table is spelled, every machine of
        // the fleet listens on the same channel and takes the same creation lock.
        let fleet = try await timed(on: connection) { try await fleet.resolve(on: connection) }
        let identity = try await timed(on: connection) { try await fleet.prepare(on: connection) }
        var pushFunction: String?
        if listener != nil {
            // Through a pooler: the primary's own function, when `prefs relay` made it.
            if try await timed(on: connection, { try await fleet.hasSharedPushFunction(on: connection) }) {
                pushFunction = fleet.sharedPushFunction
            }
        } else if timing.pushesInOneRoundTrip,
                  try await timed(on: connection, { try await fleet.installPushFunction(on: connection) }) {
            pushFunction = fleet.pushFunction
        }
        let link = SessionLink(connection: connection, fleet: fleet, replica: replica, identity: identity,
                               pushFunction: pushFunction)
        let wakeups = signals.beginSession()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [signals] in
                let listening = listener ?? connection
                do {
                    try await listening.listen(on: fleet.name.channel) { notifications in
                        signals.listening()
                        for try await notification in notifications { signals.notified(FleetNotice(payload: notification.payload)) }
                    }
                } catch {
                    guard listener != nil, !Task.isCancelled else { throw error }
                    throw RelayFailure(error)
                }
                throw listener == nil ? DefaultsError(.unreachable, "the PostgreSQL connection closed")
                    : RelayFailure(DefaultsError(.unreachable, "the PostgreSQL connection closed"))
            }
            if let listener {
                group.addTask { try await self.checkRelay(listener, fleet: fleet) }
            } else {
                group.addTask { [signals, timing] in
                    while true {
                        try await Task.sleep(for: timing.safetyFetchInterval)
                        signals.remoteChange()
                    }
                }
            }
            group.addTask {
                try await self.work(link, wakeups: wakeups)
            }
            // The first to end (with an error: none ends otherwise) ends the session.
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
#endif
