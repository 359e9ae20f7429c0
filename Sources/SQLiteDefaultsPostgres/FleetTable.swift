#if Fleet
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
    ///
    /// One round trip when the table exists (its identity, columns and unique key in one
    /// query); creating it adds four.
    /// - Throws: `DefaultsError` `.incompatibleTable` for a table of another shape, or the
    ///   connection's errors.
    func prepare(on connection: PostgresConnection) async throws -> String {
        if let found = try await inspect(on: connection) { return try check(found) }
        do {
            try await create(on: connection)
        } catch let error as PSQLError where Self.isAlreadyCreated(error) {
            // Created at the same moment by a client that does not take our lock (an older
            // version of this library, a person in psql): the table exists now; check it.
        }
        guard let found = try await inspect(on: connection) else {
            throw DefaultsError(.incompatibleTable, "the PostgreSQL table \(name) disappeared while it was being set up")
        }
        return try check(found)
    }

    /// What ``inspect(on:)`` reads of an existing table.
    private struct Inspection {
        let identity: String
        let columns: [String]
        let uniqueKeys: Int64
    }

    /// The table's identity, its columns (`name type`) and how many unique one-column indexes
    /// it has on `key`, in one query; nil when there is no such table.
    private func inspect(on connection: PostgresConnection) async throws -> Inspection? {
        let rows = try await connection.query("""
            SELECT current_database()::text, c.oid::bigint, coalesce(obj_description(c.oid, 'pg_class'), ''),
                coalesce((SELECT array_agg(a.attname::text || ' ' || format_type(a.atttypid, a.atttypmod)) FROM pg_attribute a
                          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '{}'::text[]),
                (SELECT count(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                 WHERE i.indrelid = c.oid AND i.indisunique AND i.indnkeyatts = 1 AND a.attname = 'key')
            FROM pg_class c WHERE c.oid = to_regclass(\(name.quoted))
            """, logger: logger)
        for try await (database, oid, comment, columns, unique) in rows.decode((String, Int64, String, [String], Int64).self) {
            return Inspection(identity: "\(database)/\(oid)/\(comment)", columns: columns, uniqueKeys: unique)
        }
        return nil
    }

    /// Compares the table's columns and primary key with the ones this library creates;
    /// returns its identity.
    private func check(_ found: Inspection) throws -> String {
        var types: [String: String] = [:]
        for column in found.columns {
            guard let space = column.firstIndex(of: " ") else { continue }
            types[String(column[..<space])] = String(column[column.index(after: space)...])
        }
        var problems: [String] = []
        for (column, type) in Self.columns {
            switch types[column] {
            case nil: problems.append("no column \(column)")
            case let actual? where actual != type: problems.append("\(column) is \(actual), not \(type)")
            default: break
            }
        }
        if problems.isEmpty, found.uniqueKeys == 0 { problems.append("key is not unique") }
        guard problems.isEmpty else {
            throw DefaultsError(.incompatibleTable, "the PostgreSQL table \(name) has another shape than a fleet table (\(problems.joined(separator: ", "))); use another --table name or drop it")
        }
        return found.identity
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
                for statement in creationStatements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(PostgresQuery(unsafeSQL: "COMMENT ON TABLE \(name.quoted) IS 'SQLiteDefaults fleet \(mark)'"), logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// The table and its index on `version`, as this library creates them (a relay's copy
    /// too, see ``DefaultsFleetRelay``).
    var creationStatements: [String] {
        [
            """
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
            """,
            "CREATE INDEX \(name.quotedVersionIndexName) ON \(name.quoted) (version)",
        ]
    }

    func tableOID(on connection: PostgresConnection) async throws -> Int64? {
        let rows = try await connection.query("SELECT to_regclass(\(name.quoted))::oid::bigint", logger: logger)
        for try await oid in rows.decode(Int64?.self) { return oid }
        return nil
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

    /// Every row written after `position`, as ``changes(after:on:)`` reads them, with the
    /// table's identity and newest version, in one round trip: every fetch, the safety fetch
    /// included, checks that the table is still the one this machine is in step with.
    func news(after position: Int64, on connection: PostgresConnection) async throws -> FleetNews {
        var binds = bindings(position)
        binds.append(name.quoted)
        // One row per new table row, or one with NULL columns when there is none; the identity
        // is formed as in `inspect(on:)`.
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT current_database()::text, c.oid::bigint, coalesce(obj_description(c.oid, 'pg_class'), ''),
                (SELECT coalesce(max(version), 0) FROM \(name.quoted)),
                f.key, f.storage_class, f.integer_value, f.real_value, f.bytes_value, f.version, f.origin
            FROM pg_class c LEFT JOIN \(name.quoted) f ON f.version > $1
            WHERE c.oid = to_regclass($2::text)
            ORDER BY f.version, f.key
            """, binds: binds), logger: logger)
        var identity: String?
        var newest: Int64 = 0
        var result: [FleetRow] = []
        for try await (database, oid, comment, largest, key, storageClass, integer, real, bytes, version, origin)
            in rows.decode((String, Int64, String, Int64, String?, String?, Int64?, Double?, ByteBuffer?, Int64?, String?).self) {
            identity = "\(database)/\(oid)/\(comment)"
            newest = largest
            guard let key, let storageClass, let version else { continue }
            result.append(FleetRow(key: key, value: try Self.value(storageClass, integer, real, bytes, key: key), version: version, origin: origin))
        }
        guard let identity else {
            // Gone between the parse and the lookup: a drop in progress.
            throw DefaultsError(.unreachable, "the PostgreSQL table \(name) disappeared")
        }
        return FleetNews(identity: identity, newest: newest, rows: result)
    }

    /// Every key's version: enough to tell whether the table still holds what this machine
    /// last saw of it (see ``LocalReplica/isInStep(with:position:)``), without the values.
    /// Keyed by bytes, as PostgreSQL's `text` keys are: canonically equivalent keys are two.
    func versions(on connection: PostgresConnection) async throws -> [HashedKey: Int64] {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT key, version FROM \(name.quoted)"), logger: logger)
        var result: [HashedKey: Int64] = [:]
        for try await (key, version) in rows.decode((String, Int64).self) { result[HashedKey(key)] = version }
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

    private func bindings(_ values: Int64...) -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values { binds.append(value) }
        return binds
    }
}
#endif
