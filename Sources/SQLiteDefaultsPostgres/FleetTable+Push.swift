#if Fleet
import Foundation
import Logging
import NIOCore
import PostgresNIO
import SQLiteDefaults

/// Pushing: one round trip through a session function when PostgreSQL lets the sync create one,
/// else four (`BEGIN`, `LOCK`, the upsert, `COMMIT`). Both take the same lock and pick the
/// version the same way, so machines of either kind (and older versions of this library) share
/// one table and versions stay dense and in commit order.
extension FleetTable {
    /// The largest number of rows in one INSERT: 5 parameters each, well under PostgreSQL's
    /// 65,535 parameters per statement.
    static let rowsPerStatement = 1_000

    /// Writes `rows` in one transaction, all with one new version, and notifies the channel
    /// when it commits. Returns the version: the largest so far plus one, and above `floor`.
    ///
    /// A machine rejoining a table that went back in time passes its old position as `floor`,
    /// so what it pushes, and every push after it, is numbered above the position of every
    /// machine that saw the lost versions: they fetch it instead of skipping it as seen.
    ///
    /// Four round trips for up to ``rowsPerStatement`` rows: `BEGIN`, the lock, one statement
    /// that picks the version, upserts and queues the notification, and `COMMIT`. Used when
    /// the session has no push function (see ``installPushFunction(on:)``).
    func pushInTransaction(_ rows: [PendingRow], origin: String, floor: Int64 = 0, on connection: PostgresConnection) async throws -> Int64 {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(name.quoted) IN SHARE ROW EXCLUSIVE MODE"), logger: logger)
            var version: Int64?
            var start = 0
            while start < rows.count {
                let chunk = rows[start..<min(start + Self.rowsPerStatement, rows.count)]
                let notice = version == nil ? FleetNotice.rowsText(rows, origin: origin) : nil
                let result = try await connection.query(upsert(chunk, version: version, origin: origin, floor: floor, notice: notice),
                                                        logger: logger)
                if version == nil {
                    for try await value in result.decode(Int64.self) { version = value }
                }
                start += chunk.count
            }
            try await connection.query("COMMIT", logger: logger)
            guard let version else {
                throw DefaultsError(.incompatibleTable, "the PostgreSQL table \(name) returned no version for a push")
            }
            return version
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// The upsert of one chunk. The first chunk (`version` nil) also picks the version (the
    /// largest plus one, under the lock the transaction holds), queues the notification, and
    /// returns the version; the others reuse it.
    private func upsert(_ rows: ArraySlice<PendingRow>, version: Int64?, origin: String, floor: Int64,
                        notice: String?) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: rows.count * 5 + 4)
        binds.append(origin)
        if let version {
            binds.append(version)
        } else {
            binds.append(name.channel)
            binds.append(floor)
            if let notice { binds.append(notice) } else { binds.appendNull() }
        }
        var values: [String] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            let first = binds.count + 1
            binds.append(row.key)
            switch row.value {
            case nil:
                binds.append("deleted"); binds.appendNull(); binds.appendNull(); binds.appendNull()
            case .null:
                binds.append("null"); binds.appendNull(); binds.appendNull(); binds.appendNull()
            case .integer(let number):
                binds.append("integer"); binds.append(number); binds.appendNull(); binds.appendNull()
            case .real(let number):
                binds.append("real"); binds.appendNull(); binds.append(number); binds.appendNull()
            case .text(let text):
                binds.append("text"); binds.appendNull(); binds.appendNull(); binds.append(ByteBuffer(string: text))
            case .invalidUTF8Text(let bytes):
                binds.append("text"); binds.appendNull(); binds.appendNull(); binds.append(ByteBuffer(bytes: bytes))
            case .blob(let bytes):
                binds.append("blob"); binds.appendNull(); binds.appendNull(); binds.append(ByteBuffer(bytes: bytes))
            }
            values.append("($\(first)::text, $\(first + 1)::text, $\(first + 2)::bigint, $\(first + 3)::double precision, $\(first + 4)::bytea)")
        }
        let upsert = """
            INSERT INTO \(name.quoted) (key, storage_class, integer_value, real_value, bytes_value, version, origin, updated_at)
            SELECT v.key, v.storage_class, v.integer_value, v.real_value, v.bytes_value, %VERSION%, $1, now()
            FROM (VALUES \(values.joined(separator: ", "))) AS v(key, storage_class, integer_value, real_value, bytes_value)
            ON CONFLICT (key) DO UPDATE SET storage_class = excluded.storage_class, integer_value = excluded.integer_value,
                real_value = excluded.real_value, bytes_value = excluded.bytes_value, version = excluded.version,
                origin = excluded.origin, updated_at = excluded.updated_at
            """
        guard version == nil else {
            return PostgresQuery(unsafeSQL: upsert.replacingOccurrences(of: "%VERSION%", with: "$2::bigint"), binds: binds)
        }
        // The statement's snapshot is taken after the lock, so max(version) sees every push
        // committed before this one; the INSERT in the WITH runs once whether or not it is read.
        return PostgresQuery(unsafeSQL: """
            WITH next AS (SELECT greatest(coalesce(max(version), 0), $3::bigint) + 1 AS version FROM \(name.quoted)),
            written AS (\(upsert.replacingOccurrences(of: "%VERSION%", with: "(SELECT version FROM next)")) RETURNING 1)
            SELECT next.version FROM next, LATERAL (SELECT pg_notify($2, \(Self.noticePayload(version: "next.version", rows: "$4::text")))) AS notified
            """, binds: binds)
    }


    /// The SQL of a notification's payload (see ``FleetNotice``): the version, and when the
    /// rows' text is not NULL, PostgreSQL's clock in microseconds and the rows.
    static func noticePayload(version: String, rows: String) -> String {
        """
        \(version)::text || coalesce(' ' || floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text \
        || ' ' || \(rows), '')
        """
    }

    /// The session's push function, in `pg_temp` (it lives as long as the connection, needs
    /// no right beyond `TEMPORARY`, and leaves nothing in the database), named after the
    /// table so that two tables served by one connection never share one.
    var pushFunction: String { "pg_temp.\"fleet_push_\(name.digest)\"" }

    /// The push function a relayed fleet's primary keeps, in the table's schema (see
    /// ``DefaultsFleetRelay/publish(table:on:logger:)``): through a pooler a session's own
    /// function would be on one server connection and missing from the next, and without a
    /// function a push holds the table's lock across two round trips — through a pooler, to a
    /// busy machine — which a storm of a thousand pushes turns into seconds of waiting.
    var sharedPushFunction: String { "\"\(name.schema ?? "public")\".\"defaults_fleet_push_\(name.digest)\"" }

    /// The push function's argument types, as `to_regprocedure` and `CREATE FUNCTION` spell them.
    private static let pushArguments = "text[], text[], bigint[], double precision[], bytea[], text, text, bigint, text"

    /// Whether the primary keeps ``sharedPushFunction``.
    func hasSharedPushFunction(on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT to_regprocedure(\(Self.literal("\(sharedPushFunction)(\(Self.pushArguments))"))) IS NOT NULL
            """), logger: logger)
        for try await found in rows.decode(Bool.self) { return found }
        return false
    }

    /// Creates (or replaces) ``sharedPushFunction``: the same body as the session's function.
    func installSharedPushFunction(on connection: PostgresConnection) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: pushFunctionSQL(named: sharedPushFunction)), logger: logger)
    }

    /// Creates (or replaces) ``pushFunction`` on `connection`: one round trip, once per
    /// connection. Returns false when PostgreSQL refuses (no `TEMPORARY` right, no PL/pgSQL):
    /// the sync then pushes in four round trips.
    ///
    /// Inside the function, as in a four-round-trip push, the table's lock is taken first and
    /// the version read after it: a PL/pgSQL statement in a `VOLATILE` function takes a new
    /// snapshot in READ COMMITTED, so the version picked sees every push committed before the
    /// lock was granted. The lock is held to the commit of the caller's implicit transaction.
    func installPushFunction(on connection: PostgresConnection) async throws -> Bool {
        do {
            try await connection.query(PostgresQuery(unsafeSQL: pushFunctionSQL(named: pushFunction)), logger: logger)
            return true
        } catch let error as PSQLError where Self.isRefusedFunction(error) {
            logger.debug("fleet sync: no session push function (\(String(reflecting: error))); pushing in four round trips")
            return false
        }
    }

    /// `CREATE OR REPLACE FUNCTION` of the push function under `function`'s name.
    private func pushFunctionSQL(named function: String) -> String {
        """
            CREATE OR REPLACE FUNCTION \(function)(\(Self.pushArguments))
            RETURNS bigint LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $fleet$
            DECLARE
                next_version bigint;
            BEGIN
                LOCK TABLE \(name.quoted) IN SHARE ROW EXCLUSIVE MODE;
                SELECT greatest(coalesce(max(f.version), 0), $8) + 1 INTO next_version FROM \(name.quoted) f;
                INSERT INTO \(name.quoted) AS f (key, storage_class, integer_value, real_value, bytes_value, version, origin, updated_at)
                SELECT u.k, u.c, CASE WHEN u.c = 'integer' THEN u.i END, CASE WHEN u.c = 'real' THEN u.r END,
                       CASE WHEN u.c IN ('text', 'blob') THEN u.b END, next_version, $6, now()
                FROM unnest($1, $2, $3, $4, $5) AS u(k, c, i, r, b)
                ON CONFLICT (key) DO UPDATE SET storage_class = excluded.storage_class, integer_value = excluded.integer_value,
                    real_value = excluded.real_value, bytes_value = excluded.bytes_value, version = excluded.version,
                    origin = excluded.origin, updated_at = excluded.updated_at;
                PERFORM pg_notify($7, \(Self.noticePayload(version: "next_version", rows: "$9")));
                RETURN next_version;
            END
            $fleet$
            """
    }

    /// Refusals that leave the connection usable and the four-round-trip push possible:
    /// insufficient privilege (42501), an unknown language (42704), a read-only transaction (25006).
    private static func isRefusedFunction(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return ["42501", "42704", "25006"].contains(state)
    }

    /// Writes `rows` with one new version in one round trip (a call of ``pushFunction``, in
    /// its own implicit transaction), notifying the channel when it commits; returns the
    /// version, the largest so far plus one and above `floor`.
    func pushInOneRoundTrip(_ rows: [PendingRow], origin: String, floor: Int64 = 0, through function: String? = nil,
                            on connection: PostgresConnection) async throws -> Int64 {
        let function = function ?? pushFunction
        var keys: [String] = [], classes: [String] = [], integers: [Int64] = [], reals: [Double] = []
        var bytes: [ByteBuffer] = []
        keys.reserveCapacity(rows.count)
        for row in rows {
            keys.append(row.key)
            // Arrays cannot hold NULL through the binary coder: unused slots carry a filler the
            // function ignores (it reads each column only for its own class).
            var integer: Int64 = 0, real = 0.0, buffer = ByteBuffer()
            let storageClass: String
            switch row.value {
            case nil: storageClass = "deleted"
            case .null: storageClass = "null"
            case .integer(let number): storageClass = "integer"; integer = number
            case .real(let number): storageClass = "real"; real = number
            case .text(let text): storageClass = "text"; buffer = ByteBuffer(string: text)
            case .invalidUTF8Text(let data): storageClass = "text"; buffer = ByteBuffer(bytes: data)
            case .blob(let data): storageClass = "blob"; buffer = ByteBuffer(bytes: data)
            }
            classes.append(storageClass)
            integers.append(integer)
            reals.append(real)
            bytes.append(buffer)
        }
        var binds = PostgresBindings(capacity: 9)
        binds.append(keys)
        binds.append(classes)
        binds.append(integers)
        binds.append(reals)
        binds.append(bytes)
        binds.append(origin)
        binds.append(name.channel)
        binds.append(floor)
        if let notice = FleetNotice.rowsText(rows, origin: origin) { binds.append(notice) } else { binds.appendNull() }
        let result = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT \(function)($1::text[], $2::text[], $3::bigint[], $4::double precision[], $5::bytea[], $6::text, $7::text, $8::bigint, $9::text)
            """, binds: binds), logger: logger)
        for try await version in result.decode(Int64.self) { return version }
        throw DefaultsError(.incompatibleTable, "the PostgreSQL table \(name) returned no version for a push")
    }
}
#endif
