#if Fleet
import SQLiteDefaults

/// The PostgreSQL table a fleet shares, validated: its name is the only text of ours that is
/// spliced into SQL (identifiers cannot be bound), so it is checked here and always quoted.
///
/// A name as given (`spell`) and the same table spelled with its schema (`public.spell`) must
/// be one fleet: the channel and the creation lock are derived from the *canonical* name,
/// schema-qualified as PostgreSQL resolves it (see ``FleetTable/resolve(on:)``), never from
/// the spelling.
struct FleetTableName: Sendable, Hashable, CustomStringConvertible {
    /// The schema, when the name was given as `schema.table` or was resolved; otherwise the
    /// connection's `search_path` decides, as for any unqualified name.
    let schema: String?
    let table: String

    /// Accepts `table` or `schema.table`, each part a letter or underscore followed by letters,
    /// digits or underscores, at most 63 bytes (PostgreSQL's identifier limit).
    /// - Throws: `DefaultsError` with code `.invalidConfiguration` naming the rule broken.
    init(_ name: String) throws {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(parts.count) else {
            throw DefaultsError(.invalidConfiguration, "the PostgreSQL table name '\(name)' has more than one '.'; use TABLE or SCHEMA.TABLE")
        }
        for part in parts {
            try Self.check(part, in: name)
        }
        schema = parts.count == 2 ? parts[0] : nil
        table = parts[parts.count - 1]
    }

    /// The same table in `schema`: what an unqualified name resolved to.
    init(schema: String, table: String) {
        self.schema = schema
        self.table = table
    }

    private static func check(_ part: String, in name: String) throws {
        let bytes = Array(part.utf8)
        func isStart(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
        }
        func isRest(_ byte: UInt8) -> Bool { isStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) }
        guard let first = bytes.first, isStart(first), bytes.allSatisfy(isRest) else {
            throw DefaultsError(.invalidConfiguration, "the PostgreSQL table name '\(name)' is not an identifier: use letters, digits and '_', starting with a letter or '_'")
        }
        guard bytes.count <= 63 else {
            throw DefaultsError(.invalidConfiguration, "the PostgreSQL table name '\(name)' is longer than PostgreSQL's 63-byte limit for identifiers")
        }
    }

    /// The name quoted for SQL (`"schema"."table"`); the characters allowed need no escaping.
    var quoted: String {
        if let schema { "\"\(schema)\".\"\(table)\"" } else { "\"\(table)\"" }
    }

    /// The index on `version`, in the table's schema.
    var quotedVersionIndexName: String { "\"\(table)_version\"" }

    /// The `LISTEN`/`NOTIFY` channel: the name (canonical once resolved) when it fits in
    /// PostgreSQL's 63 bytes for a channel, else a digest of it. `LISTEN` would silently cut a
    /// longer name while `pg_notify` refuses it, so the two sides would never meet.
    var channel: String {
        let name = description
        if name.utf8.count <= 63 { return name }
        return "defaults_fleet_" + String(Self.fnv1a(name), radix: 16)
    }

    /// A digest of the name (hexadecimal), for names of our own derived from it.
    var digest: String { String(Self.fnv1a(description), radix: 16) }

    /// The key of the advisory lock that serializes creating this table: every machine that
    /// names the same table (however spelled, once resolved) takes the same lock.
    var lockKey: String { "SQLiteDefaults fleet " + description }

    var description: String { schema.map { "\($0).\(table)" } ?? table }

    /// FNV-1a, 64 bits: stable across processes and machines, unlike `Hasher`.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
#endif
