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
/// machines hear of them through `LISTEN`/`NOTIFY`, fetch what is new and apply it to their
/// file in one transaction, so their observers fire as for any external change.
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

    private let logger: Logger
    private let origin: String
    private let signals = SyncSignals()
    private let status = Mutex(Status.starting)
    /// Set while the store's file must be taken as it is (see `init(store:client:table:logger:adoptingLocalValues:)`): cleared
    /// once a session has compared it with the table and pushed its differences.
    private let adoptionPending: Mutex<Bool>
    let timing: Timing

    /// What the sync last reported, so each change of state is logged once, not every retry:
    /// a failure is one state per kind (unreachable, rejected), whatever its message says.
    enum Status: Equatable {
        case starting
        case connected
        case failing(DefaultsError.Code)
    }

    /// Time-outs and back-off; the tests shorten them.
    struct Timing: Sendable {
        /// The longest a PostgreSQL round of work (a fetch, a push) may take before the
        /// connection is given up as dead (a stopped server keeps TCP open).
        var operationTimeout: Duration = .seconds(30)
        /// How often the sync fetches without a notification: a net under `LISTEN`, and the
        /// check that the connection still works.
        var safetyFetchInterval: Duration = .seconds(5)
        /// The shortest time between two pushes while changes keep coming: a stream of writes
        /// goes out in fewer, larger pushes (less work for both sides), and a write after a
        /// quiet spell is pushed at once.
        var minimumPushInterval: Duration = .milliseconds(10)
        var firstRetryDelay: Duration = .milliseconds(100)
        var longestRetryDelay: Duration = .seconds(5)
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
    public convenience init(store: DefaultsStore, client: PostgresClient, table: String = "defaults_fleet",
                            logger: Logger = Logger(label: "SQLiteDefaultsPostgres")) {
        self.init(store: store, client: client, table: table, logger: logger, timing: Timing())
    }

    /// Creates a sync that takes the store's file as it is: its rows that differ from the
    /// table are pushed, whatever the file's own record of the fleet says, and keys only the
    /// table has are taken from it. For a file put in place of the one a sync had (`prefs
    /// sync` following a database replaced by `mv`).
    package convenience init(store: DefaultsStore, client: PostgresClient, table: String, logger: Logger,
                             adoptingLocalValues: Bool) {
        self.init(store: store, client: client, table: table, logger: logger, timing: Timing(),
                  adoptingLocalValues: adoptingLocalValues)
    }

    init(store: DefaultsStore, client: PostgresClient, table: String, logger: Logger, timing: Timing,
         adoptingLocalValues: Bool = false) {
        adoptionPending = Mutex(adoptingLocalValues)
        self.store = store
        self.client = client
        self.table = table
        self.logger = logger
        self.timing = timing
        origin = "\(ProcessInfo.processInfo.hostName):\(store.path ?? "memory")"
    }

    /// Whether the sync holds a working connection and has caught up with the table since it
    /// connected (the initial comparison and fetch are done).
    public var isConnected: Bool { status.withLock { $0 == .connected } }

    /// Runs until cancelled or until graceful shutdown, then returns. While PostgreSQL
    /// cannot be reached (refused, timed out, restarting, the connection lost), it retries with
    /// back-off, 0.1 s growing to 5 s apart, and logs one line when that starts.
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
        let observation = store.observeAll { [signals] change in signals.localChange(change.key) }
        defer { observation.cancel() }
        do {
            try await cancelWhenGracefulShutdown {
                try await self.runSessions(fleet: fleet, replica: replica)
            }
        } catch is CancellationError {
            return
        } catch {
            if Task.isCancelled { return }
            throw error
        }
    }

    private func runSessions(fleet: FleetTable, replica: LocalReplica) async throws {
        var delay = timing.firstRetryDelay
        while true {
            try Task.checkCancellation()
            do {
                try await client.withConnection { connection in
                    do {
                        try await self.session(on: connection, fleet: fleet, replica: replica)
                    } catch {
                        // A connection that failed or timed out mid-work may be in any state:
                        // the pool must not lend it again.
                        if !Task.isCancelled { try? await connection.close() }
                        throw error
                    }
                }
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                let failure = FleetFailure.classify(error)
                // Only what a retry may cure is retried; the rest ends `run()` (thrown, not
                // logged: the caller decides what to say).
                guard failure.code == .unreachable else { throw failure }
                if report(.failing(failure.code)) {
                    logger.warning("fleet sync: \(failure.message); retrying with back-off", metadata: ["table": "\(fleet.name)"])
                    delay = timing.firstRetryDelay
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, timing.longestRetryDelay)
            }
        }
    }

    /// Records a new state; true when it differs from the last one reported.
    fileprivate func report(_ new: Status) -> Bool {
        status.withLock { status in
            defer { status = new }
            return status != new
        }
    }

    /// One connection's life: listen, catch up both ways, then push and fetch as signalled,
    /// until the connection fails or the sync is cancelled.
    private func session(on connection: PostgresConnection, fleet: FleetTable, replica: LocalReplica) async throws {
        // The name as PostgreSQL resolves it: however the table is spelled, every machine of
        // the fleet listens on the same channel and takes the same creation lock.
        let fleet = try await timed(on: connection) { try await fleet.resolve(on: connection) }
        let identity = try await timed(on: connection) { try await fleet.prepare(on: connection) }
        let wakeups = signals.beginSession()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [signals] in
                try await connection.listen(on: fleet.name.channel) { notifications in
                    signals.listening()
                    for try await notification in notifications { signals.notified(Int64(notification.payload)) }
                }
                throw DefaultsError(.unreachable, "the PostgreSQL connection closed")
            }
            group.addTask { [signals, timing] in
                while true {
                    try await Task.sleep(for: timing.safetyFetchInterval)
                    signals.remoteChange()
                }
            }
            group.addTask {
                try await self.work(on: connection, fleet: fleet, replica: replica, identity: identity, wakeups: wakeups)
            }
            // The first to end (with an error: none ends otherwise) ends the session.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func work(on connection: PostgresConnection, fleet: FleetTable, replica: LocalReplica,
                      identity: String, wakeups: AsyncStream<Void>) async throws {
        // Catch up only once LISTEN is in place, so no notification falls between the two.
        let listenDeadline = ContinuousClock.now + timing.operationTimeout
        for await _ in wakeups {
            if signals.isListening { break }
            if ContinuousClock.now > listenDeadline {
                try? await connection.close()
                throw DefaultsError(.unreachable, "PostgreSQL did not confirm LISTEN within \(timing.operationTimeout)")
            }
        }
        try Task.checkCancellation()
        var skipped: Set<String> = []
        // The versions this session pushed: rows of only these coming back need no apply.
        var pushed: Set<Int64> = []
        let membership = try replica.join(identity)
        var position = membership.position
        let adopting = adoptionPending.withLock { $0 }
        var inStep = true
        if !membership.isNew, !adopting {
            let versions = try await timed(on: connection) { try await fleet.versions(on: connection) }
            inStep = try replica.isInStep(with: versions, position: position)
        }
        if adopting {
            position = try await rejoin(fleet: fleet, replica: replica, identity: identity, floor: position,
                                        forgettingShadows: true, on: connection, skipped: &skipped, pushed: &pushed)
            adoptionPending.withLock { $0 = false }
        } else if !inStep {
            logger.warning("fleet sync: the PostgreSQL table \(fleet.name) went back in time (restored from a backup, or a failover to a replica that lagged behind); rejoining it: taking its newer rows, pushing again what it lost")
            position = try await rejoin(fleet: fleet, replica: replica, identity: identity, floor: position,
                                        forgettingShadows: false, on: connection, skipped: &skipped, pushed: &pushed)
        } else if membership.isNew {
            // The fleet's values first; then what only this file has.
            var none: Set<Int64> = []
            position = try await fetch(after: position, fleet: fleet, replica: replica, identity: identity,
                                       on: connection, pushed: &none, asNewMember: true)
            _ = try await push(among: nil, fleet: fleet, replica: replica, on: connection, skipped: &skipped, pushed: &pushed)
        } else {
            _ = try await push(among: nil, fleet: fleet, replica: replica, on: connection, skipped: &skipped, pushed: &pushed)
            position = try await fetch(after: position, fleet: fleet, replica: replica, identity: identity, on: connection, pushed: &pushed)
        }
        if report(.connected) {
            logger.info("fleet sync: connected; in step with PostgreSQL table \(fleet.name)")
        }
        var lastPush: ContinuousClock.Instant?
        for await _ in wakeups {
            if store.isClosed {
                throw DefaultsError(.closed, "the store was closed, so the fleet sync ended", path: store.path)
            }
            // A file moved over the store's (or deleted) leaves the store refusing every call,
            // and it hears no more commits: a sync that went on would be deaf. Checked at every
            // wake-up, the safety fetch included, so it ends within one interval.
            if let failure = store.lastReportedError, failure.code == .databaseReplaced { throw failure }
            var taken = signals.take()
            if !taken.dirty.isEmpty, let lastPush, ContinuousClock.now < lastPush + timing.minimumPushInterval {
                try await Task.sleep(until: lastPush + timing.minimumPushInterval)
                taken.merge(signals.take())
            }
            if !taken.dirty.isEmpty {
                if try await push(among: taken.dirty, fleet: fleet, replica: replica, on: connection,
                                  skipped: &skipped, pushed: &pushed) {
                    lastPush = .now
                }
            }
            if !taken.remote, let newest = taken.notified.max(), newest > position,
               (position + 1...newest).allSatisfy({ pushed.contains($0) }) {
                // Versions are dense (each push takes the largest plus one under the lock), so
                // when every version up to the notified one is this session's own push, there
                // is nothing to fetch.
                position = newest
                pushed = pushed.filter { $0 > newest }
            } else if taken.remote || taken.notified.contains(where: { $0 > position }) {
                position = try await fetch(after: position, fleet: fleet, replica: replica, identity: identity,
                                           on: connection, pushed: &pushed)
            }
        }
        throw CancellationError()
    }

    /// Joins the table again from all its rows (see ``LocalReplica/rejoin(_:identity:forgettingShadows:)``),
    /// then pushes what only this file holds, numbered above `floor` (the position this file
    /// had reached), and fetches that back. Returns the new position.
    private func rejoin(fleet: FleetTable, replica: LocalReplica, identity: String, floor: Int64, forgettingShadows: Bool,
                        on connection: PostgresConnection, skipped: inout Set<String>, pushed: inout Set<Int64>) async throws -> Int64 {
        let rows = try await timed(on: connection) { try await fleet.changes(after: 0, on: connection) }
        let position = try replica.rejoin(rows, identity: identity, forgettingShadows: forgettingShadows,
                                          onRefused: logRefusal)
        _ = try await push(among: nil, fleet: fleet, replica: replica, on: connection, skipped: &skipped, pushed: &pushed,
                           floor: floor)
        return try await fetch(after: position, fleet: fleet, replica: replica, identity: identity, on: connection, pushed: &pushed)
    }

    /// Says once, for each row the local declarations refuse, that the local value stays.
    private func logRefusal(key: String, reason: String) {
        logger.warning("fleet sync: a row from PostgreSQL was not applied, the local value stays: \(reason)",
                       metadata: ["key": "\(key)"])
    }

    /// Fetches the rows after `position` and applies them; returns the new position.
    ///
    /// Rows that are all this session's own pushes coming back are not applied: the file
    /// already holds them and their shadows. The position then moves in memory only, and is
    /// written with the next real apply (after a restart those rows are fetched again and
    /// skipped by their versions).
    private func fetch(after position: Int64, fleet: FleetTable, replica: LocalReplica, identity: String,
                       on connection: PostgresConnection, pushed: inout Set<Int64>, asNewMember: Bool = false) async throws -> Int64 {
        let rows = try await timed(on: connection) { try await fleet.changes(after: position, on: connection) }
        guard let last = rows.last else {
            if asNewMember { try replica.apply([], identity: identity, position: position, asNewMember: true) }
            return position
        }
        if !asNewMember, rows.allSatisfy({ pushed.contains($0.version) }) {
            pushed = pushed.filter { $0 > last.version }
            return last.version
        }
        try replica.apply(rows, identity: identity, position: last.version, asNewMember: asNewMember,
                          onRefused: logRefusal)
        pushed = pushed.filter { $0 > last.version }
        return last.version
    }

    /// Pushes the keys among `keys` (all keys when nil) whose rows differ from what the
    /// fleet's table holds, as far as this file knows. Returns whether anything was pushed.
    private func push(among keys: Set<String>?, fleet: FleetTable, replica: LocalReplica,
                      on connection: PostgresConnection, skipped: inout Set<String>, pushed: inout Set<Int64>,
                      floor: Int64 = 0) async throws -> Bool {
        var rows = try replica.pending(among: keys)
        rows.removeAll { row in
            // PostgreSQL's TEXT cannot hold NUL; such a key stays on this machine.
            guard row.key.utf8.contains(0) else { return false }
            if skipped.insert(row.key).inserted {
                logger.warning("fleet sync: a key containing NUL cannot be stored in PostgreSQL; it stays on this machine",
                               metadata: ["key": "\(row.key.debugDescription)"])
            }
            return true
        }
        guard !rows.isEmpty else { return false }
        let toPush = rows
        let version = try await timed(on: connection) { [origin] in try await fleet.push(toPush, origin: origin, floor: floor, on: connection) }
        try replica.recordPushed(rows, version: version)
        pushed.insert(version)
        return true
    }

    /// Runs `body` on `connection`, failing with `.unreachable` (and closing the connection)
    /// when it takes longer than the operation time-out.
    private func timed<Result: Sendable>(on connection: PostgresConnection,
                                         _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        try await Deadline.run(within: timing.operationTimeout, closing: connection, body)
    }
}

extension DefaultsPostgresSync {
    /// Reports, as the sync's own first state, that PostgreSQL cannot be reached (what
    /// ``probe(_:logger:)`` found): one line now, and none again for the retries that follow.
    /// `prefs sync` calls it, since the client's pool retries quietly for a while before it
    /// gives up a request.
    package func reportUnreachable(_ failure: DefaultsError) {
        if report(.failing(failure.code)) {
            logger.warning("fleet sync: \(failure.message); retrying with back-off", metadata: ["table": "\(table)"])
        }
    }

    /// Connects once to the server `url` names and runs `SELECT 1`, to tell at start-up what
    /// retrying cannot cure (bad credentials, no such database: `.remoteRejected`) from what it
    /// may (`.unreachable`). Returns `nil` when the server answered.
    public static func probe(_ url: PostgresURL, logger: Logger = Logger(label: "SQLiteDefaultsPostgres")) async -> DefaultsError? {
        do {
            let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 1, logger: logger)
            do {
                try await connection.query("SELECT 1", logger: logger)
                try? await connection.close()
                return nil
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            return FleetFailure.classify(error)
        }
    }
}
