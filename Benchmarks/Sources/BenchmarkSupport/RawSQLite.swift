import CSQLiteBench
import Foundation
import SQLiteDefaults

/// The floor we compare ourselves to: SQLite through its C API, the way a careful program
/// would use it — WAL, `synchronous=NORMAL`, the library's own schema (the same migration
/// files, triggers included) or a bare table, and prepared statements kept for the whole run.
public final class RawSQLite {
    /// The schema a file gets when it is new.
    public enum Schema: Sendable {
        /// The library's: `Migrations/*.sql`, change log and triggers included, so the floor
        /// does the same work per write as the library's SQL does.
        case library
        /// What a user would write by hand: `defaults(key TEXT PRIMARY KEY, value)`, no
        /// triggers, no change log. What the library's schema costs shows against it.
        case bare
        /// None: the file already has one (a store or another `RawSQLite` created it).
        case existing
    }

    public let handle: OpaquePointer
    private let upsertStatement: OpaquePointer
    private let selectStatement: OpaquePointer
    private let beginStatement: OpaquePointer
    private let commitStatement: OpaquePointer
    private var hookBox: Unmanaged<HookBox>?
    private var dataVersionStatement: OpaquePointer?

    /// The page size the library gives a file it creates (`StoreOpener.newFilePageSize`):
    /// the floor with the library's schema is a file the library would make.
    public static let libraryPageSize = 2_048

    /// Opens (creating) `path`; a new file gets `schema`, and pages of `pageSize` bytes
    /// (nil: the library's for `.library`, SQLite's default, 4,096, for a bare table).
    public init(path: String, schema: Schema = .library, pageSize: Int? = nil) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            throw BenchmarkFailure("cannot open \(path)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 10_000)
        if schema == .library { try Self.recordWriters(handle) }
        if let pageSize = pageSize ?? (schema == .library ? Self.libraryPageSize : nil) {
            try Self.execute(handle, "PRAGMA page_size = \(pageSize)")
        }
        try Self.execute(handle, "PRAGMA journal_mode = WAL")
        try Self.execute(handle, "PRAGMA synchronous = NORMAL")
        switch schema {
        case .library:
            if try Self.integer(handle, "PRAGMA user_version") == 0 {
                for (version, sql) in try Migrations.all() {
                    try Self.execute(handle, "BEGIN IMMEDIATE; \(sql); PRAGMA user_version = \(version); COMMIT")
                }
            }
        case .bare:
            try Self.execute(handle, "CREATE TABLE IF NOT EXISTS defaults(key TEXT PRIMARY KEY, value)")
        case .existing:
            break
        }
        upsertStatement = try Self.prepare(handle, """
            INSERT INTO defaults(key, value) VALUES (?1, ?2)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value
            WHERE value IS NOT excluded.value OR typeof(value) IS NOT typeof(excluded.value)
            """)
        selectStatement = try Self.prepare(handle, "SELECT value FROM defaults WHERE key = ?1")
        beginStatement = try Self.prepare(handle, "BEGIN IMMEDIATE")
        commitStatement = try Self.prepare(handle, "COMMIT")
    }

    deinit {
        for statement in [upsertStatement, selectStatement, beginStatement, commitStatement] {
            sqlite3_finalize(statement)
        }
        if let dataVersionStatement { sqlite3_finalize(dataVersionStatement) }
        sqlite3_update_hook(handle, nil, nil)
        hookBox?.release()
        sqlite3_close_v2(handle)
    }

    // MARK: Writes

    /// `INSERT … ON CONFLICT(key) DO UPDATE …` of an integer, autocommit unless in a transaction.
    public func set(_ value: Int, for key: String) throws {
        bindKey(key)
        sqlite3_bind_int64(upsertStatement, 2, Int64(value))
        try stepDone(upsertStatement)
    }

    /// The same upsert of a text value.
    public func set(_ value: String, for key: String) throws {
        bindKey(key)
        _ = value.withCString { sqlite3_bind_text(upsertStatement, 2, $0, -1, csqlitebench_transient()) }
        try stepDone(upsertStatement)
    }

    public func begin() throws { try stepDone(beginStatement) }
    public func commit() throws { try stepDone(commitStatement) }

    /// `BEGIN IMMEDIATE; body; COMMIT` (rolled back when `body` throws).
    public func transaction(_ body: () throws -> Void) throws {
        try begin()
        do {
            try body()
        } catch {
            try? Self.execute(handle, "ROLLBACK")
            throw error
        }
        try commit()
    }

    // MARK: Reads

    /// `PRAGMA data_version` (a kept statement): moves when another connection commits.
    public func dataVersion() throws -> Int64 {
        if dataVersionStatement == nil { dataVersionStatement = try Self.prepare(handle, "PRAGMA data_version") }
        let statement = dataVersionStatement!
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchmarkFailure("PRAGMA data_version failed") }
        return sqlite3_column_int64(statement, 0)
    }

    public func integer(for key: String) throws -> Int? {
        bindKey(key, statement: selectStatement)
        defer { sqlite3_reset(selectStatement) }
        switch sqlite3_step(selectStatement) {
        case SQLITE_ROW: return Int(sqlite3_column_int64(selectStatement, 0))
        case SQLITE_DONE: return nil
        case let code: throw BenchmarkFailure("select failed: \(code) \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    public func text(for key: String) throws -> String? {
        bindKey(key, statement: selectStatement)
        defer { sqlite3_reset(selectStatement) }
        switch sqlite3_step(selectStatement) {
        case SQLITE_ROW:
            guard let bytes = sqlite3_column_text(selectStatement, 0) else { return nil }
            let count = Int(sqlite3_column_bytes(selectStatement, 0))
            return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        case SQLITE_DONE: return nil
        case let code: throw BenchmarkFailure("select failed: \(code) \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    // MARK: Hooks

    /// Installs `sqlite3_update_hook` calling `callback(rowid)` inline, inside the step that
    /// changed the row (the cheapest possible notification: no commit tracking, no key).
    public func setUpdateHook(_ callback: @escaping (Int64) -> Void) {
        let box = Unmanaged.passRetained(HookBox(callback))
        hookBox?.release()
        hookBox = box
        sqlite3_update_hook(handle, { context, _, _, _, rowid in
            guard let context else { return }
            Unmanaged<HookBox>.fromOpaque(context).takeUnretainedValue().callback(rowid)
        }, box.toOpaque())
    }

    // MARK: Helpers

    public func execute(_ sql: String) throws { try Self.execute(handle, sql) }

    private func bindKey(_ key: String, statement: OpaquePointer? = nil) {
        let statement = statement ?? upsertStatement
        _ = key.withCString { sqlite3_bind_text(statement, 1, $0, -1, csqlitebench_transient()) }
    }

    private func stepDone(_ statement: OpaquePointer) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw BenchmarkFailure("step failed: \(code) \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    static func prepare(_ handle: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else {
            throw BenchmarkFailure("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        return statement
    }

    /// With the library's schema, the floor records a writer in each change-log entry as the
    /// library does: its triggers store what `sqlite_source_id()` answers when it is a JSON
    /// object, and every connection of the library answers with its process's identity
    /// (`WriterIdentity`). Without this the floor's entries would be about 60 bytes smaller
    /// than the library's, and a transaction of 100 keys would write fewer pages.
    private static func recordWriters(_ handle: OpaquePointer) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(handle, "sqlite_source_id", 0, flags, nil, { context, _, _ in
            sqlite3_result_text(context, RawSQLite.writerIdentity, -1, nil)  // static: never freed
        }, nil, nil, nil)
        guard code == SQLITE_OK else { throw BenchmarkFailure("cannot override sqlite_source_id()") }
    }

    /// This process's identity, in the shape the library records (`DefaultsWriter.current`).
    // Written once, before any connection reads it, and never changed or freed.
    nonisolated(unsafe) private static let writerIdentity: UnsafeMutablePointer<CChar> = {
        struct Identity: Encodable { let pid: Int32?, program: String?, user: String?, host: String? }
        let writer = DefaultsWriter.current
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Identity(pid: writer.pid, program: writer.program, user: writer.user, host: writer.host))) ?? Data("{}".utf8)
        return strdup(String(decoding: data, as: UTF8.self))
    }()

    static func execute(_ handle: OpaquePointer, _ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw BenchmarkFailure("\(sql.prefix(60)): \(text)")
        }
    }

    static func integer(_ handle: OpaquePointer, _ sql: String) throws -> Int {
        let statement = try prepare(handle, sql)
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : 0
    }
}

private final class HookBox {
    let callback: (Int64) -> Void
    init(_ callback: @escaping (Int64) -> Void) { self.callback = callback }
}

/// The library's schema, read from `Migrations/NNNN_*.sql` at run time (the same files the
/// library embeds), so the raw baseline always runs the same triggers.
public enum Migrations {
    /// The repository's `Migrations` folder: `$SQLITEDEFAULTS_MIGRATIONS`, or found from this
    /// source file's location (`Benchmarks/Sources/BenchmarkSupport/` → `Migrations/`).
    public static var directory: String {
        if let path = ProcessInfo.processInfo.environment["SQLITEDEFAULTS_MIGRATIONS"], !path.isEmpty { return path }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations").path
    }

    /// `(version, sql)` in order.
    public static func all() throws -> [(Int, String)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            // `schema.sql` is the generated schema of a new file, for reading; not a step.
            .filter { $0.hasSuffix(".sql") && $0 != "schema.sql" }.sorted()
        guard !names.isEmpty else { throw BenchmarkFailure("no migrations in \(directory)") }
        return try names.map { name in
            guard let version = Int(name.prefix { $0.isNumber }) else { throw BenchmarkFailure("bad migration name \(name)") }
            return (version, try String(contentsOfFile: directory + "/" + name, encoding: .utf8))
        }
    }
}

public struct BenchmarkFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
