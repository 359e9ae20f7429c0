
/// What other connections changed, as the `defaults_changes` table records it, and how far
/// this store has applied it.
///
/// Every committed change to `defaults`, by any writer, appends `(seq, key)` through triggers
/// (see `Migrations/`). A store remembers its ``Position`` — the last entry it has *applied*,
/// with that entry's key and the database's identity — and on each check reads the entries
/// after it. The position moves only through ``advance(past:)`` and ``finish(_:)``, which the
/// engine calls after it has applied what an entry says, so an error in the middle of a check
/// leaves the rest for the next one.
///
/// It also recognises when the entries after the position cannot be trusted to name every
/// changed key — the log was pruned past the position, it went backwards (a `sqlite3 .restore`,
/// the backup API), or the file now holds another database — and asks for a full comparison
/// instead (``Scan/resync(_:)``).
///
/// Used only by the thread holding the store's connection.
final class ChangeLog {
    /// The last entry applied: its sequence number and key, and the database identity it
    /// belongs to (migration 0003 gives every database file a random one).
    struct Position: Equatable {
        var sequence: Int64
        var key: String?
        var identity: String?
    }

    /// One entry another connection logged, with its writer where the log names one.
    struct Entry {
        let sequence: Int64
        let key: String
        var writer: DefaultsWriter? = nil
        /// The value the entry wrote, as the log keeps it (since migration 0007): `.removed`,
        /// `.value`, or `.unknown` when the log does not hold it (too large, a secret, an older
        /// file), and the row must be read.
        var logged: Logged = .unknown
    }

    /// What an entry says of its key's new value.
    enum Logged {
        case unknown
        case removed
        case value(SQLiteValue)
    }

    /// What a check found.
    enum Scan {
        /// Other connections' entries after the position, in log order (a key may repeat), and
        /// where the log ended when read; `ownKeys`, the keys of this store's own entries among
        /// them (a key whose newest entry is its own must be read, not taken from an older one).
        case entries([Entry], end: Position, dataVersion: Int64, ownKeys: Set<String>)
        /// The entries after the position do not tell everything: compare every key.
        case resync(reason: String, dataVersion: Int64)
    }

    private(set) var position: Position
    /// `PRAGMA data_version` at the last completed check; it moves only when another
    /// connection commits.
    private(set) var dataVersion: Int64
    /// This connection's own entries not yet passed, as ascending ranges with the key of each
    /// range's last entry (one range per commit, merged when they touch).
    private var ownSequences: [(range: ClosedRange<Int64>, lastKey: String?)] = []
    /// The file's schema version, once asked. This connection migrated the file when it
    /// opened, but a backup from an older version restored under it (`sqlite3 .restore`) lacks
    /// the history's columns: a scan that fails forgets the answer, so the next one asks the
    /// file again and reads the columns that version has. Asked once, not on every look after
    /// an external commit.
    private var schemaVersion: SchemaVersion?

    /// Starts from the log's present end.
    init(_ database: Database) throws {
        position = try Self.end(of: database)
        dataVersion = try database.integer("PRAGMA data_version")
    }

    /// The log's newest entry and the database's identity, as `database` sees them now.
    static func end(of database: Database) throws -> Position {
        let newest = try database.statement("SELECT seq, key FROM defaults_changes ORDER BY seq DESC LIMIT 1")
        defer { newest.reset() }
        var position = Position(sequence: 0, key: nil, identity: nil)
        if try newest.step() {
            position.sequence = newest.int64(at: 0)
            position.key = newest.text(at: 1)
        }
        position.identity = try identity(database)
        return position
    }

    private static func identity(_ database: Database) throws -> String? {
        let statement = try database.statement("SELECT id FROM defaults_identity LIMIT 1")
        defer { statement.reset() }
        return try statement.step() ? statement.text(at: 0) : nil
    }

    // MARK: Own commits

    /// Notes this connection's own entries after a commit, so a check does not report them
    /// back as external. (The log is pruned by ``StoreConnection/notePrunableCommit(_:)``; a
    /// store that falls further behind than the log reaches compares every key instead.)
    func noteOwnCommit(_ sequences: ClosedRange<Int64>, lastKey: String?) {
        if let last = ownSequences.last, last.range.upperBound + 1 >= sequences.lowerBound {
            ownSequences[ownSequences.count - 1] = (last.range.lowerBound...max(last.range.upperBound, sequences.upperBound),
                                                    sequences.upperBound >= last.range.upperBound ? lastKey : last.lastKey)
        } else {
            ownSequences.append((sequences, lastKey))
        }
    }

    /// Whether another connection logged entries before `sequence` that this store has neither
    /// applied nor written: asked right after this connection's own commit, whose first entry
    /// is `sequence`, so those are applied before its changes are announced.
    func hasUnappliedEntries(before sequence: Int64) -> Bool {
        var covered = position.sequence
        for own in ownSequences {
            guard own.range.lowerBound <= covered + 1 else { break }
            covered = max(covered, own.range.upperBound)
        }
        return covered + 1 < sequence
    }

    // MARK: Checking

    /// What `PRAGMA data_version` said.
    enum VersionCheck {
        /// Another connection committed since the last completed check.
        case changed(Int64)
        /// Nobody else did; `passedOwnCommits` when this connection committed meanwhile (the
        /// position moved past its entries).
        case unchanged(passedOwnCommits: Bool)
    }

    /// Compares `PRAGMA data_version` with the last completed check. When nobody else
    /// committed, every newer entry is this connection's own, and the position moves past them.
    func checkDataVersion(_ database: Database) throws -> VersionCheck {
        let version = try database.integer("PRAGMA data_version")
        if version != dataVersion { return .changed(version) }
        guard let newest = ownSequences.last else { return .unchanged(passedOwnCommits: false) }
        position.sequence = max(position.sequence, newest.range.upperBound)
        position.key = newest.lastKey
        ownSequences.removeAll(keepingCapacity: true)
        return .unchanged(passedOwnCommits: true)
    }

    /// Reads what other connections logged after the position. Call inside a read
    /// transaction, so the entries and the values read for them come from one snapshot.
    ///
    /// Only entries whose key `wants` accepts (one the store caches or someone observes) are
    /// returned: for the rest the scan reads the key and nothing else, so another process's
    /// burst of keys nobody here looks at costs a step per row, not an entry each.
    func scan(_ database: Database, dataVersion version: Int64, wants: (String) -> Bool) throws -> Scan {
        if try Self.identity(database) != position.identity {
            return .resync(reason: "the file now holds another database", dataVersion: version)
        }
        let schema = try schemaVersion ?? SchemaVersion.of(database)
        schemaVersion = schema
        do {
            return try entries(after: database, schemaVersion: schema, dataVersion: version, wants: wants)
        } catch {
            schemaVersion = nil
            throw error
        }
    }

    /// The entries from the position on, reading the columns a log of `schemaVersion` has.
    private func entries(after database: Database, schemaVersion: SchemaVersion, dataVersion version: Int64,
                         wants: (String) -> Bool) throws -> Scan {
        // Before migration 7 the log kept no time and no writer: NULLs stand in for them.
        // Since migration 7 it keeps the value written too, which saves reading each row again.
        let history = schemaVersion.hasHistory
            ? "time, " + HistoryLog.writerColumns(identity: schemaVersion.recordsWriterIdentity)
                + ", value, removed, omitted, " + (schemaVersion.hasSecrets ? "secret" : "NULL")
            : "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
        // One statement reads the position's own entry (it must still be there, with the same
        // key) and everything after it.
        let statement = try database.statement("""
            SELECT seq, key, \(history)
            FROM defaults_changes WHERE seq >= ?1 ORDER BY seq
            """)
        defer { statement.reset() }
        try statement.bind(position.sequence, at: 1)
        if position.sequence > 0 {
            let found = try statement.step() && statement.int64(at: 0) == position.sequence ? statement.text(at: 1) : nil
            if found == nil {
                return .resync(reason: "the change log no longer holds the last entry this store applied (pruned, or the database went back to an earlier state)", dataVersion: version)
            }
            if let known = position.key, found != known {
                return .resync(reason: "the change log was rewritten (the database went back to an earlier state)", dataVersion: version)
            }
        }
        var entries: [Entry] = []
        var ownKeys = Set<String>()
        var end = position
        var ownIndex = ownSequences.startIndex
        while try statement.step() {
            let sequence = statement.int64(at: 0)
            // Asked before the key is read as text: reading converts the column, and SQLite's
            // type of a converted column is undefined.
            let keyIsText = statement.isText(at: 1)
            let key = statement.text(at: 1)
            if sequence != end.sequence + 1 {
                // Entries after the position are gone: the log was pruned past it, or edited.
                return .resync(reason: "the change log has a gap after entry \(end.sequence)", dataVersion: version)
            }
            end.sequence = sequence
            end.key = key
            // Both ascend: walk our own ranges along with the log.
            while ownIndex < ownSequences.endIndex, ownSequences[ownIndex].range.upperBound < sequence { ownIndex += 1 }
            if ownIndex < ownSequences.endIndex, ownSequences[ownIndex].range.contains(sequence) {
                // Our own entry, at the number we logged it under: another key there means the
                // file went back to an earlier state and was written again since.
                if sequence == ownSequences[ownIndex].range.upperBound, let lastKey = ownSequences[ownIndex].lastKey, lastKey != key {
                    return .resync(reason: "the change log was rewritten (the database went back to an earlier state)", dataVersion: version)
                }
                ownKeys.insert(key)
                continue
            }
            guard wants(key) else { continue }
            entries.append(Entry(sequence: sequence, key: key, writer: Self.writer(statement),
                                 logged: keyIsText ? Self.logged(statement) : .unknown))
        }
        // This connection's own commits are in the log until this store passes them (pruning
        // keeps the newest entries): a log that ends before them went back to an earlier state
        // (`sqlite3 .restore` of a backup) before this store had looked past its own commit,
        // and the position's entry, older than those, still being there proves nothing.
        if let newest = ownSequences.last, newest.range.upperBound > end.sequence {
            return .resync(reason: "the change log no longer holds this store's own newest entry (the database went back to an earlier state)", dataVersion: version)
        }
        return .entries(entries, end: end, dataVersion: version, ownKeys: ownKeys)
    }

    /// The writer of the entry `statement` is on (columns 2…8: time, then
    /// `HistoryLog.writerColumns`); nil for an entry from before history was kept (no time).
    /// The value columns (9 to 12) of an entry, as ``Logged``. Not for an entry whose key is a
    /// BLOB (a file from before schema 10): it reads as the TEXT key with the same bytes, but
    /// is another row, and its value is not that key's.
    private static func logged(_ statement: Statement) -> Logged {
        guard !statement.isNull(at: 2) else { return .unknown }  // no time: before migration 0007
        if statement.optionalInt64(at: 10) == 1 { return .removed }
        if statement.optionalInt64(at: 11) != nil || statement.optionalInt64(at: 12) == 1 { return .unknown }
        return .value(statement.value(at: 9))
    }

    private static func writer(_ statement: Statement) -> DefaultsWriter? {
        guard !statement.isNull(at: 2) else { return nil }
        return HistoryLog.writer(statement, from: 3)
    }

    /// Records that everything up to and including `entry` has been applied.
    func advance(past entry: Entry) {
        guard entry.sequence > position.sequence else { return }
        position.sequence = entry.sequence
        position.key = entry.key
        ownSequences.removeAll { $0.range.upperBound <= position.sequence }
    }

    /// The store's connection was closed and opened again: `PRAGMA data_version` of the new
    /// one cannot be compared with the old one's, so the next check reads the log from the
    /// position whatever it says.
    func connectionChanged() {
        dataVersion = .min
    }

    /// Records that a whole scan was applied.
    func finish(end: Position, dataVersion version: Int64) {
        position = end
        dataVersion = version
        ownSequences.removeAll { $0.range.upperBound <= position.sequence }
    }

    /// Records that every key was compared with the database as `database` sees it now (after
    /// a resync): the position becomes the log's present end.
    func reset(_ database: Database, dataVersion version: Int64) throws {
        position = try Self.end(of: database)
        dataVersion = version
        ownSequences.removeAll()
    }
}
