import Foundation

/// The history columns of the change log (`Migrations/0007_history.sql`, with the writer
/// recorded by the triggers since `0008_writer_in_trigger.sql`): reading entries, naming the
/// fleet's entries, folding a library transaction's writes of one key into one entry, and how
/// long the log is kept.
///
/// Stateless: every function takes the connection it works on, and is called only by the
/// thread holding it.
enum HistoryLog {
    /// TEXT and BLOB values up to this many bytes are kept whole; larger ones by size only.
    /// The same number is written into the triggers of migrations 0007 and 0008: SQLite has no
    /// named constant a trigger can read without a lookup on every write (a view or a settings
    /// row costs a subquery per `set`; see `Migrations/schema.sql`'s header), so the SQL keeps its
    /// own copy, and HistoryTests checks both sides of the boundary against this one.
    static let valueLimit = 16_384
    /// The number of changes kept when the file says nothing else.
    static let defaultKept = 10_000
    /// The range of ``DefaultsStore/setHistoryRetention(_:)``.
    static let keptRange = 100...10_000_000

    /// One row of the log as history shows it.
    struct Row {
        let sequence: Int64
        let key: String
        let value: SQLiteValue?
        let isRemoved: Bool
        let omitted: Int?
        let milliseconds: Int64
        let writer: DefaultsWriter
        /// The entry is of a secret key: no value is kept (Migrations/0012).
        let isSecret: Bool
        /// For a secret's entry written by this library: its digest and sealed value (``SecretSeal``).
        let sealed: [UInt8]?
        /// The entry's key is TEXT: a key bound as a BLOB (a file from before schema 10) is no
        /// key of the store, and readers skip its entries.
        var keyIsText = true
        /// For a sealed secret's entry: the digest history shows, keyed by the key and the
        /// value (``SecretSeal/shownDigest(_:key:fileKey:)``); set by the reads of entries.
        var digest: String?
    }

    /// The columns ``row(_:)`` reads; the writer's are ``writerColumns(identity:)``. A file
    /// before schema 12 has no `secret` or `sealed`: NULLs stand in.
    private static func columns(identity: Bool, secrets: Bool) -> String {
        "seq, key, value, removed, omitted, time, " + writerColumns(identity: identity)
            + (secrets ? ", secret, sealed" : ", NULL, NULL")
    }

    /// The six columns ``writer(_:from:)`` reads. A file at schema 7 (a read-only store on a
    /// file no writer has migrated yet) has no `writer_identity`: NULL stands in for it.
    static func writerColumns(identity: Bool) -> String {
        "writer, writer_pid, writer_program, writer_user, writer_host, " + (identity ? "writer_identity" : "NULL")
    }

    /// The newest `limit` entries, newest first, of `keys` (all keys when nil), older than the
    /// sequence `before` when given (a page of a longer read). Entries from before migration
    /// 0007 (no time) and superseded ones are not history.
    static func rows(_ database: Database, keys: [String]?, limit: Int, before: Int64? = nil, identity: Bool,
                     secrets: Bool) throws -> [Row] {
        let columns = columns(identity: identity, secrets: secrets)
        guard limit > 0 else { return [] }
        var rows: [Row] = []
        if let keys {
            // One key at a time, merged: each is a backwards walk that stops at `limit`.
            let statement = try database.statement("""
                SELECT \(columns) FROM defaults_changes
                WHERE key = ?1 AND seq < ?3 AND time IS NOT NULL AND superseded IS NULL ORDER BY seq DESC LIMIT ?2
                """)
            // Distinct by bytes, as SQLite tells keys apart: two spellings of "é" are two keys.
            for key in Set(keys.map(HashedKey.init)).map(\.name) {
                try statement.bind(key, at: 1)
                try statement.bind(Int64(limit), at: 2)
                try statement.bind(before ?? .max, at: 3)
                defer { statement.reset() }
                while try statement.step() { rows.append(row(statement)) }
            }
            rows.sort { $0.sequence > $1.sequence }
            if rows.count > limit { rows.removeSubrange(limit...) }
            return try withDigests(rows, database: database)
        }
        let statement = try database.statement("""
            SELECT \(columns) FROM defaults_changes
            WHERE seq < ?2 AND time IS NOT NULL AND superseded IS NULL ORDER BY seq DESC LIMIT ?1
            """)
        try statement.bind(Int64(limit), at: 1)
        try statement.bind(before ?? .max, at: 2)
        defer { statement.reset() }
        while try statement.step() { rows.append(row(statement)) }
        return try withDigests(rows, database: database)
    }

    /// Up to `limit` entries after `sequence`, oldest first: the next page of a change feed.
    /// Entries from before migration 0007 (no time) and superseded ones are no changes.
    static func rows(after sequence: Int64, limit: Int, database: Database, identity: Bool, secrets: Bool) throws -> [Row] {
        let statement = try database.statement("""
            SELECT \(columns(identity: identity, secrets: secrets)) FROM defaults_changes
            WHERE seq > ?1 AND time IS NOT NULL AND superseded IS NULL ORDER BY seq LIMIT ?2
            """)
        defer { statement.reset() }
        try statement.bind(sequence, at: 1)
        try statement.bind(Int64(limit), at: 2)
        var rows: [Row] = []
        while try statement.step() { rows.append(row(statement)) }
        return try withDigests(rows, database: database)
    }

    /// `rows` with each sealed secret's shown ``Row/digest``, the file's key read once.
    private static func withDigests(_ rows: [Row], database: Database) throws -> [Row] {
        guard rows.contains(where: { $0.sealed != nil }), let fileKey = try fileKey(database) else { return rows }
        return rows.map { row in
            var row = row
            row.digest = row.sealed.flatMap { SecretSeal.shownDigest($0, key: row.key, fileKey: fileKey) }
            return row
        }
    }

    /// The file's own random key (`defaults_digest_key`, Migrations/0012); nil when it has none.
    static func fileKey(_ database: Database) throws -> [UInt8]? {
        let statement = try database.statement("SELECT key FROM defaults_digest_key LIMIT 1")
        defer { statement.reset() }
        return try statement.step() ? statement.optionalBlob(at: 0) : nil
    }

    /// The oldest and newest entry numbers the log holds; nil when it is empty. Both ends of
    /// the rowid B-tree, no entry read.
    static func span(_ database: Database) throws -> ClosedRange<Int64>? {
        // Two subqueries: SQLite answers a lone min() or max() from one end of the B-tree, but
        // scans the whole table for both in one SELECT.
        let statement = try database.statement("SELECT (SELECT min(seq) FROM defaults_changes), (SELECT max(seq) FROM defaults_changes)")
        defer { statement.reset() }
        guard try statement.step(), let oldest = statement.optionalInt64(at: 0), let newest = statement.optionalInt64(at: 1) else {
            return nil
        }
        return oldest...newest
    }

    private static func row(_ statement: Statement) -> Row {
        // Asked before the key is read as text (see ChangeLog's entries).
        let keyIsText = statement.isText(at: 1)
        func optionalInteger(_ column: Int32) -> Int64? { statement.optionalInt64(at: column) }
        let removed = optionalInteger(3) == 1
        let secret = !removed && optionalInteger(12) == 1
        let omitted = secret ? nil : optionalInteger(4).map { Int($0) }
        let value: SQLiteValue? = removed || secret || omitted != nil ? nil : statement.value(at: 2)
        let writer = Self.writer(statement, from: 6)
        return Row(sequence: statement.int64(at: 0), key: statement.text(at: 1), value: value, isRemoved: removed,
                   omitted: omitted, milliseconds: optionalInteger(5) ?? 0, writer: writer,
                   isSecret: secret, sealed: secret ? statement.optionalBlob(at: 13) : nil,
                   keyIsText: keyIsText)
    }

    /// The writer named by the six columns of ``writerColumns(identity:)`` from `column` on.
    /// `writer` names the fleet (and, in entries from schema 7, this library); otherwise
    /// `writer_identity` names this library's process (recorded by the trigger); with neither,
    /// a SQL client outside this library wrote the entry.
    static func writer(_ statement: Statement, from column: Int32) -> DefaultsWriter {
        func text(_ offset: Int32) -> String? { statement.optionalText(at: column + offset) }
        let kind = text(0)
        if kind == nil, let identity = text(5) {
            return WriterIdentity.writer(from: identity) ?? DefaultsWriter(kind: .sql)
        }
        switch kind {
        case "library"?:
            let pid = statement.optionalInt64(at: column + 1).map { Int32(truncatingIfNeeded: $0) }
            return DefaultsWriter(kind: .library, pid: pid, program: text(2), user: text(3), host: text(4))
        case "fleet"?:
            return DefaultsWriter(kind: .fleet, host: text(4))
        default:
            return DefaultsWriter(kind: .sql)
        }
    }

    // MARK: One entry's value

    /// The value entry `sequence` wrote: `.some(nil)` when it removed its key; nil when the
    /// log does not hold that entry's value (no such entry, too large to keep, a secret an outside
    /// SQL client wrote, or a seal that does not open). A secret's is opened with the file's key.
    static func writtenValue(sequence: Int64, database: Database, secrets: Bool) throws -> (key: String, value: SQLiteValue?)? {
        let statement = try database.statement("""
            SELECT key, value, removed, omitted, \(secrets ? "secret, sealed" : "NULL, NULL")
            FROM defaults_changes WHERE seq = ?1 AND time IS NOT NULL AND superseded IS NULL
            """)
        defer { statement.reset() }
        try statement.bind(sequence, at: 1)
        guard try statement.step() else { return nil }
        let key = statement.text(at: 0)
        if statement.optionalInt64(at: 2) == 1 { return (key, nil) }
        if statement.optionalInt64(at: 4) == 1 {
            guard let sealed = statement.optionalBlob(at: 5) else { return nil }
            guard let keyBytes = try fileKey(database), let value = SecretSeal.open(sealed, fileKey: keyBytes) else { return nil }
            return (key, value)
        }
        if statement.optionalInt64(at: 3) != nil { return nil }
        return (key, statement.value(at: 1))
    }

    // MARK: The fleet's entries

    /// Re-stamps entries a replicator wrote with the writer it names (the fleet and its machine).
    static func stamp(_ sequences: ClosedRange<Int64>, writer: DefaultsWriter, database: Database) throws {
        let statement = try database.statement("""
            UPDATE defaults_changes SET writer = ?1, writer_pid = ?2, writer_program = ?3, writer_user = ?4, writer_host = ?5
            WHERE seq BETWEEN ?6 AND ?7
            """)
        defer { statement.reset() }
        try statement.bind(.text(writer.kind.rawValue), at: 1)
        try statement.bind(writer.pid.map { .integer(Int64($0)) } ?? .null, at: 2)
        try statement.bind(writer.program.map(SQLiteValue.text) ?? .null, at: 3)
        try statement.bind(writer.user.map(SQLiteValue.text) ?? .null, at: 4)
        try statement.bind(writer.host.map(SQLiteValue.text) ?? .null, at: 5)
        try statement.bind(sequences.lowerBound, at: 6)
        try statement.bind(sequences.upperBound, at: 7)
        _ = try statement.step()
    }

    // MARK: One entry per key per transaction

    /// Before a library transaction commits: each key it wrote more than once keeps only its
    /// last entry (the final value); the earlier ones are marked superseded. When that final
    /// value is the one the key had before the transaction (as its previous entry says), the
    /// last is marked too — observers hear nothing of such a key, and history says nothing.
    ///
    /// - Parameter writes: the transaction's writes in order, each with its log entries.
    static func foldRepeatedWrites(_ writes: [ChangeRecorder.Write], database: Database) throws {
        var lastIndex = [HashedKey: Int](minimumCapacity: writes.count)
        var firstSequence = [HashedKey: Int64]()
        var repeated = false
        for (index, write) in writes.enumerated() {
            let key = write.hashedKey
            if lastIndex.updateValue(index, forKey: key) != nil { repeated = true }
            if firstSequence[key] == nil, let first = write.sequences?.lowerBound { firstSequence[key] = first }
        }
        guard repeated else { return }
        let mark = try database.statement("UPDATE defaults_changes SET superseded = 1 WHERE seq BETWEEN ?1 AND ?2")
        func supersede(_ range: ClosedRange<Int64>) throws {
            try mark.bind(range.lowerBound, at: 1)
            try mark.bind(range.upperBound, at: 2)
            defer { mark.reset() }
            _ = try mark.step()
        }
        var counts = [HashedKey: Int]()
        for write in writes { counts[write.hashedKey, default: 0] += 1 }
        for (index, write) in writes.enumerated() {
            let key = write.hashedKey
            guard counts[key, default: 0] > 1, let sequences = write.sequences else { continue }
            if lastIndex[key] != index {
                try supersede(sequences)
            } else if let first = firstSequence[key],
                      let before = try previousState(of: write.key, before: first, database: database),
                      SQLiteValue.isSameRow(before, write.value) {
                try supersede(sequences)
            }
        }
    }

    /// What the key held before entry `sequence`, as its newest earlier entry says: `.some(nil)`
    /// when that entry removed it, nil when no earlier entry says (pruned, or from before 0007,
    /// or a value kept by size only).
    private static func previousState(of key: String, before sequence: Int64, database: Database) throws -> SQLiteValue?? {
        let statement = try database.statement("""
            SELECT value, removed, omitted, time FROM defaults_changes
            WHERE key = ?1 AND seq < ?2 AND superseded IS NULL ORDER BY seq DESC LIMIT 1
            """)
        try statement.bind(key, at: 1)
        try statement.bind(sequence, at: 2)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        if statement.isNull(at: 3) || !statement.isNull(at: 2) { return nil }  // from before 0007, or kept by size only
        if !statement.isNull(at: 1) { return .some(nil) }
        return .some(statement.value(at: 0))
    }

    // MARK: Length

    /// How many changes the file keeps, as `defaults_history_settings` says.
    static func kept(_ database: Database) throws -> Int {
        let statement = try database.statement("SELECT kept FROM defaults_history_settings LIMIT 1")
        defer { statement.reset() }
        guard try statement.step() else { return defaultKept }
        let kept = statement.int64(at: 0)
        return keptRange.contains(Int(clamping: kept)) ? Int(kept) : defaultKept
    }

    /// Records how many changes the file keeps.
    static func setKept(_ count: Int, database: Database) throws {
        try database.execute("DELETE FROM defaults_history_settings")
        let statement = try database.statement("INSERT INTO defaults_history_settings(kept) VALUES (?1)")
        defer { statement.reset() }
        try statement.bind(Int64(count), at: 1)
        _ = try statement.step()
    }

    /// Deletes entries older than the newest `kept` changes (superseded entries and entries
    /// from before 0007 are not counted as changes, so at least `kept` changes stay).
    ///
    /// Reads no entry: numbers have no holes (`Migrations/0009_prune_without_scan.sql`), so the
    /// newest `kept` rows start at `max(seq) - kept + 1`, and each superseded row among them
    /// (counted in `defaults_changes_superseded`) moves the start one further back. Its cost is
    /// the rows it deletes, whatever the length kept.
    static func prune(keeping kept: Int, database: Database) throws {
        // One transaction, so the window and the deletes see the same log.
        try database.execute("BEGIN IMMEDIATE")
        do {
            // The file's own version, not the one this connection migrated it to: a backup of
            // an older version restored under it (`sqlite3 .restore`) brings back that version's log.
            let schema = try SchemaVersion.of(database)
            if schema.hasHistory, let oldestKept = try oldestKept(keeping: kept, schema: schema, database: database) {
                if schema.keepsPrunedVersions { try keepVersions(before: oldestKept, database: database) }
                var tables = ["defaults_changes"]
                if schema.listsSuperseded { tables.append("defaults_changes_superseded") }
                for table in tables {
                    let delete = try database.statement("DELETE FROM \(table) WHERE seq < ?1")
                    defer { delete.reset() }
                    try delete.bind(oldestKept, at: 1)
                    _ = try delete.step()
                }
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }
}
