import Foundation
import Logging
import NIOCore
import PostgresNIO
import SQLiteDefaults

/// The fleet's table in PostgreSQL: one row per key, with the newest value any machine pushed.
///
/// ```sql
/// key           TEXT PRIMARY KEY
/// storage_class TEXT     -- 'integer', 'real', 'text', 'blob', 'null', or 'deleted'
/// integer_value BIGINT   -- set for 'integer'
/// real_value    DOUBLE PRECISION  -- set for 'real' (bit for bit: sent in binary)
/// bytes_value   BYTEA    -- 'text' (its UTF-8 bytes: PostgreSQL's TEXT refuses NUL) and 'blob'
/// version       BIGINT   -- the push that wrote the row; grows in commit order
/// origin        TEXT     -- the machine that pushed it
/// updated_at    TIMESTAMPTZ
/// ```
///
/// Deleted keys stay as `'deleted'` rows, so a machine that was away hears of the deletion.
/// Every push takes the table's `SHARE ROW EXCLUSIVE` lock before it picks its version (the
/// largest so far, plus one) and holds it to its commit, so versions are handed out in commit
/// order: a reader that has seen version N has seen every version below it.
struct FleetTable: Sendable {
    let name: FleetTableName
    let logger: Logger

    static let columns: [(name: String, type: String)] = [
        ("key", "text"),
        ("storage_class", "text"),
        ("integer_value", "bigint"),
        ("real_value", "double precision"),
        ("bytes_value", "bytea"),
        ("version", "bigint"),
        ("origin", "text"),
        ("updated_at", "timestamp with time zone"),
    ]

    // MARK: Setting up

    /// The same table under its canonical name: schema-qualified as PostgreSQL resolves it
    /// for this connection (an existing table found through `search_path`, else the schema
    /// `CREATE TABLE` would use, `current_schema()`), so `spell` and `public.spell` are one
    /// table with one channel and one creation lock.
    /// - Throws: `DefaultsError` `.invalidConfiguration` when the named schema does not
    ///   exist, or when `search_path` names no existing schema; or the connection's errors.
    func resolve(on connection: PostgresConnection) async throws -> FleetTable {
        var binds = PostgresBindings(capacity: 2)
        binds.append(name.quoted)
        if let schema = name.schema { binds.append(schema) } else { binds.appendNull() }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT CASE WHEN $2::text IS NULL
                THEN coalesce((SELECT n.nspname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                               WHERE c.oid = to_regclass($1::text)), current_schema()::text)
                ELSE (SELECT nspname::text FROM pg_namespace WHERE nspname = $2::text) END
            """, binds: binds), logger: logger)
        var resolved: String?
        for try await schema in rows.decode(String?.self) { resolved = schema }
        guard let resolved else {
            if let schema = name.schema {
                throw DefaultsError(.invalidConfiguration, "PostgreSQL has no schema '\(schema)' (from the table name \(name)); create it or name another table")
            }
            throw DefaultsError(.invalidConfiguration, "PostgreSQL's search_path names no existing schema to hold the table \(name); name it as SCHEMA.TABLE")
        }
        return FleetTable(name: FleetTableName(schema: resolved, table: name.table), logger: logger)
    }

    /// Creates the table when missing, checks its shape, and returns what identifies it: the
    /// database, the table's OID and the random mark written into its comment when created.
    /// A different identity than last time means another table (dropped and created again,
    /// or another server): the local file then joins it as a new member. Call it on a
    /// resolved table (``resolve(on:)``).
    /// - Throws: `DefaultsError` `.incompatibleTable` for a table of another shape, or the
    ///   connection's errors.
    func prepare(on connection: PostgresConnection) async throws -> String {
        do {
            try await create(on: connection)
        } catch let error as PSQLError where Self.isAlreadyCreated(error) {
            // Created at the same moment by a client that does not take our lock (an older
            // version of this library, a person in psql): the table exists now; check it.
        }
        try await checkShape(on: connection)
        let rows = try await connection.query("""
            SELECT current_database(), c.oid::bigint, coalesce(obj_description(c.oid, 'pg_class'), '')
            FROM pg_class c WHERE c.oid = to_regclass(\(name.quoted))
            """, logger: logger)
        for try await (database, oid, comment) in rows.decode((String, Int64, String).self) {
            return "\(database)/\(oid)/\(comment)"
        }
        throw DefaultsError(.incompatibleTable, "the PostgreSQL table \(name) disappeared while it was being set up")
    }

    /// A unique violation in the catalog (23505) or "relation already exists" (42P07).
    private static func isAlreadyCreated(_ error: PSQLError) -> Bool {
        let state = error.serverInfo?[.sqlState]
        return state == "23505" || state == "42P07"
    }

    /// `CREATE TABLE` unless the table exists, serialized by a transaction-level advisory lock
    /// keyed on the canonical name: two machines creating the same table at once would
    /// otherwise collide in PostgreSQL's catalog ("duplicate key … pg_type", 23505).
    private func create(on connection: PostgresConnection) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(name.lockKey)))", logger: logger)
            let exists = try await tableOID(on: connection) != nil
            if !exists {
                let mark = UUID().uuidString.lowercased()
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE TABLE \(name.quoted) (
                        key TEXT PRIMARY KEY,
                        storage_class TEXT NOT NULL CHECK (storage_class IN ('integer', 'real', 'text', 'blob', 'null', 'deleted')),
                        integer_value BIGINT,
                        real_value DOUBLE PRECISION,
                        bytes_value BYTEA,
                        version BIGINT NOT NULL,
                        origin TEXT NOT NULL,
                        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
                    )
                    """), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE INDEX \(name.quotedVersionIndexName) ON \(name.quoted) (version)"), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "COMMENT ON TABLE \(name.quoted) IS 'SQLiteDefaults fleet \(mark)'"), logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    private func tableOID(on connection: PostgresConnection) async throws -> Int64? {
        let rows = try await connection.query("SELECT to_regclass(\(name.quoted))::oid::bigint", logger: logger)
        for try await oid in rows.decode(Int64?.self) { return oid }
        return nil
    }

    /// Compares the table's columns and primary key with the ones this library creates.
    private func checkShape(on connection: PostgresConnection) async throws {
        let rows = try await connection.query("""
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod)
            FROM pg_attribute a
            WHERE a.attrelid = to_regclass(\(name.quoted)) AND a.attnum > 0 AND NOT a.attisdropped
            """, logger: logger)
        var found: [String: String] = [:]
        for try await (column, type) in rows.decode((String, String).self) { found[column] = type }
        var problems: [String] = []
        for (column, type) in Self.columns {
            switch found[column] {
            case nil: problems.append("no column \(column)")
            case let actual? where actual != type: problems.append("\(column) is \(actual), not \(type)")
            default: break
            }
        }
        if problems.isEmpty {
            let keys = try await connection.query("""
                SELECT count(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                WHERE i.indrelid = to_regclass(\(name.quoted)) AND i.indisunique AND i.indnkeyatts = 1 AND a.attname = 'key'
                """, logger: logger)
            var unique: Int64 = 0
            for try await count in keys.decode(Int64.self) { unique = count }
            if unique == 0 { problems.append("key is not unique") }
        }
        guard problems.isEmpty else {
            throw DefaultsError(.incompatibleTable, "the PostgreSQL table \(name) has another shape than a fleet table (\(problems.joined(separator: ", "))); use another --table name or drop it")
        }
    }

    // MARK: Reading

    /// Every row written after `position`, in version order: the newest value of each key
    /// changed since (a key changed twice is one row).
    func changes(after position: Int64, on connection: PostgresConnection) async throws -> [FleetRow] {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT key, storage_class, integer_value, real_value, bytes_value, version, origin
            FROM \(name.quoted) WHERE version > $1 ORDER BY version, key
            """, binds: bindings(position)), logger: logger)
        var result: [FleetRow] = []
        for try await (key, storageClass, integer, real, bytes, version, origin)
            in rows.decode((String, String, Int64?, Double?, ByteBuffer?, Int64, String?).self) {
            result.append(FleetRow(key: key, value: try Self.value(storageClass, integer, real, bytes, key: key), version: version, origin: origin))
        }
        return result
    }

    /// Every key's version: enough to tell whether the table still holds what this machine
    /// last saw of it (see ``LocalReplica/isInStep(with:position:)``), without the values.
    func versions(on connection: PostgresConnection) async throws -> [String: Int64] {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT key, version FROM \(name.quoted)"), logger: logger)
        var result: [String: Int64] = [:]
        for try await (key, version) in rows.decode((String, Int64).self) { result[key] = version }
        return result
    }

    private static func value(_ storageClass: String, _ integer: Int64?, _ real: Double?, _ bytes: ByteBuffer?, key: String) throws -> SQLiteValue? {
        switch storageClass {
        case "deleted": return nil
        case "null": return .null
        case "integer":
            if let integer { return .integer(integer) }
        case "real":
            if let real { return .real(real) }
        case "text":
            // TEXT travels as bytes: bytes that are not valid UTF-8 arrive exactly as they left.
            if let bytes {
                return String(validating: bytes.readableBytesView, as: UTF8.self).map(SQLiteValue.text)
                    ?? .invalidUTF8Text(Data(bytes.readableBytesView))
            }
        case "blob":
            if let bytes { return .blob(Data(bytes.readableBytesView)) }
        default:
            break
        }
        throw DefaultsError(.incompatibleTable, "the fleet table's row for key '\(key)' is malformed (storage class '\(storageClass)' without its value)", key: key)
    }

    // MARK: Writing

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
    /// that picks the version, upserts and queues the notification, and `COMMIT`.
    func push(_ rows: [PendingRow], origin: String, floor: Int64 = 0, on connection: PostgresConnection) async throws -> Int64 {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(name.quoted) IN SHARE ROW EXCLUSIVE MODE"), logger: logger)
            var version: Int64?
            var start = 0
            while start < rows.count {
                let chunk = rows[start..<min(start + Self.rowsPerStatement, rows.count)]
                let result = try await connection.query(upsert(chunk, version: version, origin: origin, floor: floor), logger: logger)
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
    private func upsert(_ rows: ArraySlice<PendingRow>, version: Int64?, origin: String, floor: Int64) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: rows.count * 5 + 3)
        binds.append(origin)
        if let version {
            binds.append(version)
        } else {
            binds.append(name.channel)
            binds.append(floor)
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
            SELECT next.version FROM next, LATERAL (SELECT pg_notify($2, next.version::text)) AS notified
            """, binds: binds)
    }

    private func bindings(_ values: Int64...) -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values { binds.append(value) }
        return binds
    }
}
