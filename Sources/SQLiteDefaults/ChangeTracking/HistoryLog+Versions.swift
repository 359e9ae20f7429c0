import Foundation

/// Keys' versions (``DefaultsStore/version(of:)-(String)``): the sequence of each key's newest
/// change, read from the log and, since `Migrations/0013_versions_survive_pruning.sql`, from
/// what prunes recorded of the entries they deleted.
extension HistoryLog {
    /// `key`'s version: the sequence number of its newest change (superseded entries are no
    /// change): the newest the log keeps, else, on a file that keeps them
    /// (`Migrations/0013_versions_survive_pruning.sql`), the one a prune deleted; 0 when neither
    /// says. A backwards walk of the log that stops at the key's newest entry, then one lookup.
    static func version(of key: String, schema: SchemaVersion, database: Database) throws -> Int64 {
        let statement = try database.statement(schema.keepsPrunedVersions ? """
            SELECT coalesce((SELECT seq FROM defaults_changes WHERE key = ?1 AND superseded IS NULL ORDER BY seq DESC LIMIT 1),
                            (SELECT seq FROM defaults_versions WHERE key = ?1), 0)
            """ : """
            SELECT seq FROM defaults_changes WHERE key = ?1 AND superseded IS NULL ORDER BY seq DESC LIMIT 1
            """)
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    /// Every key's version at once (keys at version 0 are absent): one pass over the log and
    /// the pruned keys' versions.
    static func versions(schema: SchemaVersion, _ database: Database) throws -> [String: Int64] {
        let statement = try database.statement(schema.keepsPrunedVersions ? """
            SELECT key, max(seq) FROM (SELECT key, seq FROM defaults_changes WHERE superseded IS NULL
                                       UNION ALL SELECT key, seq FROM defaults_versions)
            WHERE typeof(key) = 'text' GROUP BY key
            """ : """
            SELECT key, max(seq) FROM defaults_changes WHERE superseded IS NULL AND typeof(key) = 'text' GROUP BY key
            """)
        defer { statement.reset() }
        var versions: [String: Int64] = [:]
        while try statement.step() { versions[statement.text(at: 0)] = statement.int64(at: 1) }
        return versions
    }

    /// Records, for each key whose changes before `oldestKept` are about to be deleted, the
    /// newest of them, so that its version survives (a newer entry the log keeps still wins
    /// on reading). Costs a pass over the entries the prune deletes, as the delete does.
    static func keepVersions(before oldestKept: Int64, database: Database) throws {
        let statement = try database.statement("""
            INSERT INTO defaults_versions(key, seq)
            SELECT key, max(seq) FROM defaults_changes WHERE seq < ?1 AND superseded IS NULL AND key IS NOT NULL GROUP BY key
            ON CONFLICT(key) DO UPDATE SET seq = max(seq, excluded.seq)
            """)
        defer { statement.reset() }
        try statement.bind(oldestKept, at: 1)
        _ = try statement.step()
    }
}
