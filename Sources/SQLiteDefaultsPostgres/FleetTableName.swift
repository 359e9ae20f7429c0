import SQLiteDefaults

/// The PostgreSQL table a fleet shares, validated: its name is the only text of ours that is
/// spliced into SQL (identifiers cannot be bound), so it is checked here and always quoted.
struct FleetTableName: Sendable, Hashable, CustomStringConvertible {
    /// The schema, when the name was given as `schema.table`; otherwise the connection's
    /// `search_path` decides, as for any unqualified name.
    let schema: String?
    let table: String

    /// Accepts `table` or `schema.table`, each part a letter or underscore followed by letters,
    /// digits or underscores, at most 63 bytes (PostgreSQL's identifier limit).
    /// - Throws: ``DefaultsError`` with code `.invalidConfiguration` naming the rule broken.
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

    /// The `LISTEN`/`NOTIFY` channel: the name as given.
    var channel: String { description }

    var description: String { schema.map { "\($0).\(table)" } ?? table }
}
