#if Fleet
import Logging
import PostgresNIO
import SQLiteDefaults

/// A relay's side of the table: a copy kept by PostgreSQL's logical replication, whose trigger
/// notifies the relay's own listeners of every push it receives, with the same payload the
/// primary's push sends (see ``FleetNotice``). The primary's cost per write then depends on the
/// number of relays, not of machines.
extension FleetTable {
    /// The trigger's name on a relay's copy of the table.
    static let relayTriggerName = "defaults_fleet_relay"

    /// The relay's trigger function, in the table's schema, named after the table.
    var relayFunction: String {
        let schema = name.schema ?? "public"
        return "\"\(schema)\".\"defaults_fleet_relay_\(name.digest)\""
    }

    /// The publication on the primary that carries the table to its relays.
    var publicationName: String { "sqlitedefaults_\(name.digest)" }

    /// The trigger function and the trigger, enabled `ALWAYS` (a trigger runs for rows the
    /// replication applies only when so enabled).
    ///
    /// It is a deferred constraint trigger so that it runs at the commit of the transaction the
    /// replication applies: every row of the push is in the table by then, and the first row's
    /// call builds the whole payload (the push's rows, in the primary's JSON form, or its version
    /// alone past 7,999 bytes, as the primary's push does) and notifies once; a setting local to
    /// the transaction tells the calls for the other rows that it is done.
    var relayStatements: [String] {
        let classCode = """
            CASE f.storage_class WHEN 'integer' THEN 'i' WHEN 'real' THEN 'r' WHEN 'text' THEN 't' WHEN 'blob' THEN 'b' \
            WHEN 'null' THEN 'n' ELSE 'd' END
            """
        let value = """
            CASE f.storage_class WHEN 'integer' THEN f.integer_value::text WHEN 'real' THEN encode(float8send(f.real_value), 'hex') \
            WHEN 'text' THEN translate(encode(f.bytes_value, 'base64'), E'\\n', '') \
            WHEN 'blob' THEN translate(encode(f.bytes_value, 'base64'), E'\\n', '') END
            """
        return [
            """
            CREATE OR REPLACE FUNCTION \(relayFunction)() RETURNS trigger LANGUAGE plpgsql
            SET search_path = pg_catalog, pg_temp AS $relay$
            DECLARE
                payload text;
            BEGIN
                IF current_setting('sqlitedefaults.relayed_\(name.digest)', true) = NEW.version::text THEN
                    RETURN NULL;
                END IF;
                PERFORM set_config('sqlitedefaults.relayed_\(name.digest)', NEW.version::text, true);
                SELECT NEW.version::text || ' ' || floor(extract(epoch FROM max(f.updated_at)) * 1000000)::bigint::text || ' '
                       || json_build_object('o', min(f.origin), 'r', json_agg(json_build_object('k', f.key, 'c', \(classCode),
                                                                                                 'v', \(value)) ORDER BY f.key))::text
                INTO payload FROM \(name.quoted) f WHERE f.version = NEW.version;
                IF payload IS NULL OR octet_length(payload) > 7999 THEN
                    payload := NEW.version::text;
                END IF;
                PERFORM pg_notify(\(Self.literal(name.channel)), payload);
                RETURN NULL;
            END
            $relay$
            """,
            "DROP TRIGGER IF EXISTS \(Self.relayTriggerName) ON \(name.quoted)",
            """
            CREATE CONSTRAINT TRIGGER \(Self.relayTriggerName) AFTER INSERT OR UPDATE ON \(name.quoted)
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(relayFunction)()
            """,
            "ALTER TABLE \(name.quoted) ENABLE ALWAYS TRIGGER \(Self.relayTriggerName)",
        ]
    }

    /// Whether this server holds a relay's copy of the table: the table, with the trigger
    /// enabled `ALWAYS`.
    func isRelay(on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(\(Self.literal(name.quoted)))
                AND tgname = \(Self.literal(Self.relayTriggerName)) AND tgenabled = 'A'
            """), logger: logger)
        for try await count in rows.decode(Int64.self) { return count > 0 }
        return false
    }

    /// The newest version the table holds (0 when empty): one read of the index on `version`.
    func newest(on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT coalesce(max(version), 0) FROM \(name.quoted)"),
                                              logger: logger)
        for try await newest in rows.decode(Int64.self) { return newest }
        return 0
    }

    /// `text` as an SQL string literal (identifiers and names here are letters, digits, `_`,
    /// `.` and `"`; the quote is doubled all the same).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
#endif
