#if Fleet
import Logging
import PostgresNIO
import SQLiteDefaults

/// Sets up the relays of a large fleet: PostgreSQL databases that keep a copy of the fleet's
/// table by logical replication and notify their own listeners of every push.
///
/// A fleet of one server has every machine `LISTEN` on the primary, and each write wakes every
/// listener there: the primary's cost per write grows with the fleet, and it holds one
/// connection per machine. A relayed fleet pushes through a pooler (PgBouncer in transaction
/// mode) to the primary and listens on a relay, so the primary holds the pooler's few
/// connections and one replication connection per relay, whatever the fleet's size:
///
/// ```swift
/// // Once, as a superuser: the primary publishes the table, each relay subscribes to it.
/// let publication = try await DefaultsFleetRelay.publish(on: primary)
/// try await DefaultsFleetRelay.install(on: relay, publication: publication,
///                                      primaryConnectionInfo: "host=db1 dbname=prefs user=replicator")
/// // On every machine: pushes through the pooler, notifications from the relays.
/// let sync = DefaultsPostgresSync(store: store, client: pooler, relays: [relay1, relay2])
/// ```
///
/// Both calls can be run again: what exists is kept (the relay's trigger is replaced by the
/// current one). See the fleet's article "At thousands of machines".
public enum DefaultsFleetRelay {
    /// On the primary: creates the fleet's table when missing (as a sync would), the push
    /// function machines call through the pooler (one round trip, the table's lock held only
    /// inside the server), and a publication of the table. Returns the publication's name, for ``install(table:on:publication:primaryConnectionInfo:subscription:logger:)``.
    ///
    /// Needs a role that owns the table (or may create it) and has `CREATE` on the database;
    /// the primary must run with `wal_level = logical`.
    ///
    /// - Parameters:
    ///   - table: the fleet's table, `TABLE` or `SCHEMA.TABLE`.
    ///   - primary: a connection to the primary.
    ///   - logger: where PostgresNIO logs.
    /// - Throws: `DefaultsError` `.invalidConfiguration` for an invalid table name or a primary
    ///   without `wal_level = logical`, `.incompatibleTable` for a table of another shape, or
    ///   what PostgreSQL answers (classified as a sync's errors are: `.remoteRejected` for a
    ///   missing right, `.unreachable` for a lost connection).
    @discardableResult
    public static func publish(table: String = "defaults_fleet", on primary: PostgresConnection,
                               logger: Logger = Logger(label: "SQLiteDefaultsPostgres")) async throws -> String {
        do {
            let fleet = try await FleetTable(name: FleetTableName(table), logger: logger).resolve(on: primary)
            guard try await setting("wal_level", on: primary, logger: logger) == "logical" else {
                throw DefaultsError(.invalidConfiguration, "the primary runs with wal_level other than 'logical', so it cannot publish the table \(fleet.name) to relays: set wal_level = logical and restart it")
            }
            _ = try await fleet.prepare(on: primary)
            try await fleet.installSharedPushFunction(on: primary)
            let exists = try await count("SELECT count(*) FROM pg_publication WHERE pubname = \(FleetTable.literal(fleet.publicationName))",
                                         on: primary, logger: logger) > 0
            if !exists {
                try await primary.query(PostgresQuery(unsafeSQL: "CREATE PUBLICATION \"\(fleet.publicationName)\" FOR TABLE \(fleet.name.quoted)"),
                                        logger: logger)
            }
            return fleet.publicationName
        } catch {
            throw FleetFailure.classify(error)
        }
    }

    /// On a relay: creates the table's copy (same name and shape), its trigger, and a
    /// subscription to `publication` on the primary that `primaryConnectionInfo` names.
    ///
    /// PostgreSQL copies the table's rows first, then streams every push as it commits; the
    /// trigger notifies the relay's listeners of each one with the payload the primary sends.
    /// Needs a superuser on the relay (PostgreSQL 15 lets only superusers create
    /// subscriptions), which must not be the primary itself.
    ///
    /// - Parameters:
    ///   - table: the fleet's table, as the machines name it.
    ///   - relay: a connection to the relay, as a superuser.
    ///   - publication: what ``publish(table:on:logger:)`` returned.
    ///   - primaryConnectionInfo: how the relay reaches the primary, in libpq's form
    ///     (`host=db1 port=5432 dbname=prefs user=replicator`), as the relay's server sees the
    ///     network. PostgreSQL keeps it in `pg_subscription`, readable by superusers only; a
    ///     password may also come from the relay server's own `~/.pgpass`.
    ///   - subscription: the subscription's name, unique among the primary's relays (it names
    ///     the primary's replication slot); by default derived from the table and the relay.
    ///   - logger: where PostgresNIO logs.
    /// - Returns: the subscription's name.
    /// - Throws: `DefaultsError` `.invalidConfiguration` for an invalid table name or a schema
    ///   the relay lacks, `.incompatibleTable` for an existing table of another shape, or what
    ///   PostgreSQL answers (a subscription it cannot create names the primary's reason).
    @discardableResult
    public static func install(table: String = "defaults_fleet", on relay: PostgresConnection, publication: String,
                               primaryConnectionInfo: String, subscription: String? = nil,
                               logger: Logger = Logger(label: "SQLiteDefaultsPostgres")) async throws -> String {
        do {
            let name = try FleetTableName(table)
            let fleet = try await FleetTable(name: name, logger: logger).resolve(on: relay)
            if try await fleet.tableOID(on: relay) == nil {
                for statement in fleet.creationStatements {
                    try await relay.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            } else {
                // The same shape check a sync makes; a relay's copy has no identity of its own.
                _ = try await fleet.prepare(on: relay)
            }
            for statement in fleet.relayStatements {
                try await relay.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            var chosen = subscription ?? ""
            if subscription == nil { chosen = try await defaultSubscriptionName(fleet, on: relay, logger: logger) }
            let exists = try await count("SELECT count(*) FROM pg_subscription WHERE subname = \(FleetTable.literal(chosen))",
                                         on: relay, logger: logger) > 0
            if !exists {
                // Only a copy: emptied, so that PostgreSQL's first copy of the primary's rows
                // cannot collide with rows a dropped subscription left.
                try await relay.query(PostgresQuery(unsafeSQL: "TRUNCATE \(fleet.name.quoted)"), logger: logger)
                try await relay.query(PostgresQuery(unsafeSQL: """
                    CREATE SUBSCRIPTION "\(chosen.replacingOccurrences(of: "\"", with: "\"\""))"
                    CONNECTION \(FleetTable.literal(primaryConnectionInfo))
                    PUBLICATION "\(publication.replacingOccurrences(of: "\"", with: "\"\""))"
                    """), logger: logger)
            }
            return chosen
        } catch {
            throw FleetFailure.classify(error)
        }
    }

    /// Sets up a relayed fleet from URLs: ``publish(table:on:logger:)`` on `primary`, then
    /// ``install(table:on:publication:primaryConnectionInfo:subscription:logger:)`` on each of
    /// `relays`, each on a connection of its own, closed when done. What `prefs relay` runs.
    ///
    /// - Parameters:
    ///   - table: the fleet's table, as the machines name it.
    ///   - primary: the primary's URL (with its password, if any, resolved).
    ///   - relays: each relay's URL, as a superuser there.
    ///   - primaryConnectionInfo: how the relays reach the primary, in libpq's form; by default
    ///     the host, port, database, user (and password, when `primary` carries one) of
    ///     `primary`, which suits relays that see the primary as this machine does.
    ///   - logger: where PostgresNIO logs its connections.
    /// - Returns: the publication's name and each relay's subscription, in order.
    /// - Throws: what ``publish(table:on:logger:)`` and ``install(table:on:publication:primaryConnectionInfo:subscription:logger:)``
    ///   throw, and `.unreachable` or `.remoteRejected` when a server cannot be reached or
    ///   refuses the login; the message names the server.
    @discardableResult
    public static func setUp(table: String = "defaults_fleet", primary: PostgresURL, relays: [PostgresURL],
                             primaryConnectionInfo: String? = nil,
                             logger: Logger = Logger(label: "SQLiteDefaultsPostgres")) async throws -> (publication: String, subscriptions: [String]) {
        let publication = try await onConnection(to: primary, role: "the primary", logger: logger) { connection in
            try await publish(table: table, on: connection, logger: logger)
        }
        let info = primaryConnectionInfo ?? connectionInfo(primary)
        var subscriptions: [String] = []
        for relay in relays {
            subscriptions.append(try await onConnection(to: relay, role: "the relay \(relay)", logger: logger) { connection in
                try await install(table: table, on: connection, publication: publication, primaryConnectionInfo: info, logger: logger)
            })
        }
        return (publication, subscriptions)
    }

    /// libpq's key/value form of `url` (values quoted as libpq reads them).
    static func connectionInfo(_ url: PostgresURL) -> String {
        func quoted(_ value: String) -> String {
            "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        var parts = ["host=\(quoted(url.host))", "port=\(url.port)", "dbname=\(quoted(url.database))", "user=\(quoted(url.user))"]
        if let password = url.configuration.password { parts.append("password=\(quoted(password))") }
        return parts.joined(separator: " ")
    }

    private static func onConnection<Result: Sendable>(to url: PostgresURL, role: String, logger: Logger,
                                                       _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 1, logger: logger)
        } catch {
            let failure = FleetFailure.classify(error)
            throw DefaultsError(failure.code, "\(role): \(failure.message)")
        }
        do {
            let result = try await body(connection)
            try? await connection.close()
            return result
        } catch let error as DefaultsError {
            try? await connection.close()
            throw DefaultsError(error.code, "\(role): \(error.message)")
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `sqlitedefaults_<table digest>_<relay digest>`: the relay is told apart by its cluster's
    /// system identifier and its database, so two relays never share a slot on the primary.
    private static func defaultSubscriptionName(_ fleet: FleetTable, on relay: PostgresConnection, logger: Logger) async throws -> String {
        let rows = try await relay.query(
            "SELECT (SELECT system_identifier FROM pg_control_system())::text || '/' || current_database()::text", logger: logger)
        var identity = ""
        for try await text in rows.decode(String.self) { identity = text }
        return "sqlitedefaults_\(fleet.name.digest)_\(String(FleetTableName.fnv1a(identity), radix: 16))"
    }

    private static func setting(_ name: String, on connection: PostgresConnection, logger: Logger) async throws -> String {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT current_setting(\(FleetTable.literal(name)))"), logger: logger)
        for try await value in rows.decode(String.self) { return value }
        return ""
    }

    private static func count(_ sql: String, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }
}
#endif
