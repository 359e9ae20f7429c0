/// A file's schema version (`PRAGMA user_version`, one step per file in `Migrations/`), and the
/// one place that knows what each version brings.
///
/// Code that reads a column or table a migration added asks the version by the feature's name
/// (`version.hasHistory`), never by a number: a reader of an older file (a read-only store on a
/// file no writer has migrated yet) then reads only what that file has.
struct SchemaVersion: Comparable, Sendable, CustomStringConvertible {
    let number: Int

    init(_ number: Int) { self.number = number }

    /// The version of the file `database` holds, read without writing anything.
    static func of(_ database: Database) throws -> SchemaVersion {
        SchemaVersion(try Migrator.currentVersion(of: database))
    }

    // MARK: What each version brings (Migrations/NNNN_*.sql)

    /// 0001: the `defaults` table.
    static let defaultsTable = SchemaVersion(1)
    /// 0002: the change log (`defaults_changes`) and its triggers.
    static let changeLog = SchemaVersion(2)
    /// 0003: `defaults_identity`, the file's random identity (checked against its -wal).
    static let fileIdentity = SchemaVersion(3)
    /// 0004: a REAL zero is always logged (its sign may change unseen by `=`).
    static let signedZero = SchemaVersion(4)
    /// 0005: the change log without AUTOINCREMENT.
    static let logWithoutAutoincrement = SchemaVersion(5)
    /// 0006: declared keys (`defaults_schema` and its triggers).
    static let declaredKeys = SchemaVersion(6)
    /// 0007: history: the log keeps each change's value, time and writer, and its length
    /// (`defaults_history_settings`).
    static let history = SchemaVersion(7)
    /// 0008: the triggers record the writing process (`writer_identity`).
    static let writerIdentity = SchemaVersion(8)
    /// 0009: superseded entries listed in `defaults_changes_superseded` (pruning without a scan).
    static let supersededList = SchemaVersion(9)
    /// 0010: declarations enforced alike on every SQLite from 3.34 on.
    static let declarationsOnEverySQLite = SchemaVersion(10)
    /// 0011: the fleet's local tables (`defaults_fleet_shadow`, `defaults_fleet_state`).
    static let fleetReplica = SchemaVersion(11)
    /// 0012: secret keys (`defaults_schema.secret`), masked log entries (`secret`, `digest`) and
    /// the file's digest key (`defaults_digest_key`).
    static let secrets = SchemaVersion(12)
    /// 0013: the versions of keys whose newest change was pruned (`defaults_versions`).
    static let prunedVersions = SchemaVersion(13)
    /// 0014: the declared-key checks cheap to prepare (`defaults_json_grammar`, the JSON
    /// validator as a table; the checks compiled once per upsert).
    static let checksCheapToPrepare = SchemaVersion(14)
    /// 0015: one redefined built-in: the library judges JSON and seals secrets in Swift, and the
    /// triggers call only `sqlite_source_id()` of its own.
    static let oneRedefinedBuiltin = SchemaVersion(15)
    /// 0016: the checks cheaper still to prepare (`defaults_json_steps`, the JSON grammar with
    /// a step for every byte; the declared-key check and the log triggers in fewer nodes).
    static let upsertsCheaperToPrepare = SchemaVersion(16)

    /// The version a new file has: the last embedded migration's.
    static var latest: SchemaVersion { SchemaVersion(Migration.latestVersion) }

    /// The log has history's columns (value, time, writer) and a kept length.
    var hasHistory: Bool { self >= .history }
    /// The log's entries name the writing process in `writer_identity`.
    var recordsWriterIdentity: Bool { self >= .writerIdentity }
    /// Superseded entries are listed in `defaults_changes_superseded`.
    var listsSuperseded: Bool { self >= .supersededList }
    /// Declarations can be secret, and the log masks their values.
    var hasSecrets: Bool { self >= .secrets }
    /// A prune keeps the version of each key whose newest change it deletes.
    var keepsPrunedVersions: Bool { self >= .prunedVersions }

    static func < (a: SchemaVersion, b: SchemaVersion) -> Bool { a.number < b.number }

    var description: String { String(number) }
}
