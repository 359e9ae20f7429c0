import CSQLiteDefaults
import Foundation

/// One SQLite connection and its statement cache. Not thread-safe: the store serializes all
/// use through its database lock (see `DatabaseAccess`).
final class Database {
    let handle: OpaquePointer
    let path: String
    private var statements: [String: Statement] = [:]

    /// Opens `path` (or `:memory:`) with explicit flags: read-write (or read-only), no shared
    /// cache, no SQLite-level mutex (the store's lock already serializes use), extended result codes.
    init(path: String, create: Bool, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE | SQLITE_OPEN_EXRESCODE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) }
            let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
            if let handle { sqlite3_close_v2(handle) }
            throw DefaultsError(.cannotOpen, "cannot open the database at \(path)", path: path,
                                sqliteCode: code, sqliteMessage: message ?? String(cString: sqlite3_errstr(code)),
                                systemErrno: systemErrno)
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    private(set) var isClosed = false

    deinit {
        close()
    }

    /// Finalizes every statement and closes the connection. Idempotent; nothing may use the
    /// connection afterwards.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()  // finalize every statement before closing
        sqlite3_close_v2(handle)
    }

    /// A cached prepared statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws -> Statement {
        if let cached = statements[sql] { return cached }
        let statement = try Statement(database: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs SQL that returns no rows (several statements allowed), without caching.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw error(code, "running '\(sql.prefix(60))'", message: text)
        }
    }

    /// The first column of the first row of `sql`, as an integer (for pragmas and counts).
    func integer(_ sql: String) throws -> Int64 {
        let statement = try statement(sql)
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.int64(at: 0)
    }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE (triggers' rows not counted).
    var changes: Int32 { sqlite3_changes(handle) }

    /// A ``DefaultsError`` for a failed SQLite call: the kind of failure in the user's words,
    /// what we were doing, and SQLite's own code and message.
    func error(_ code: Int32, _ operation: String, message: String? = nil) -> DefaultsError {
        let sqliteMessage = message ?? String(cString: sqlite3_errmsg(handle))
        var systemErrno = sqlite3_system_errno(handle)
        // SQLite reports a write refused with EFBIG (the file size limit) or EDQUOT (a quota)
        // as a plain SQLITE_IOERR_WRITE and does not keep that errno (sqlite3_system_errno is
        // 0 by then): look at the files themselves to tell a full disk from a failing one.
        if code & 0xFF == SQLITE_IOERR, systemErrno == 0, FileSpace.isExhausted(forDatabase: path) {
            systemErrno = ENOSPC
        }
        return DefaultsError.sqlite(code, operation: operation, path: path, message: sqliteMessage, systemErrno: systemErrno)
    }
}

/// Whether a database's files have room to grow.
enum FileSpace {
    /// True when the process's file size limit (RLIMIT_FSIZE) leaves less than one WAL frame
    /// of room in the database, its -wal or its -shm, or the file system has less than 1 MiB
    /// free for this user.
    static func isExhausted(forDatabase path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }  // ":memory:"
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {  // RLIM_INFINITY
            let frame: UInt64 = 65_536 + 24  // the largest page plus a WAL frame header
            for suffix in ["", "-wal", "-shm"] {
                var info = stat()
                if stat(path + suffix, &info) == 0, UInt64(info.st_size) + frame > UInt64(limit.rlim_cur) { return true }
            }
        }
        var space = statvfs()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if statvfs(directory, &space) == 0, UInt64(space.f_bavail) * UInt64(space.f_frsize) < 1 << 20 {
            return true
        }
        return false
    }
}

extension DefaultsError {
    /// Maps a SQLite result code to the error a user can act on.
    static func sqlite(_ code: Int32, operation: String, path: String?, message: String?, systemErrno: Int32 = 0) -> DefaultsError {
        let where_ = path.map { " (\($0))" } ?? ""
        let kind: Code
        let sentence: String
        switch code & 0xFF {
        case SQLITE_NOTADB:
            kind = .notADatabase; sentence = "the file is not a SQLite database"
        case SQLITE_CORRUPT:
            kind = .corrupt; sentence = "the database file is damaged"
        case SQLITE_FULL:
            kind = .diskFull; sentence = "the disk is full"
        case SQLITE_IOERR where systemErrno == ENOSPC || systemErrno == EFBIG || systemErrno == EDQUOT:
            kind = .diskFull; sentence = "the disk is full (or the file size limit was reached)"
        case SQLITE_IOERR:
            kind = .ioError; sentence = "an I/O error occurred"
        case SQLITE_READONLY:
            kind = .readOnly; sentence = "the database is read-only"
        case SQLITE_BUSY, SQLITE_LOCKED:
            kind = .busy; sentence = "the database stayed locked by another connection past the busy timeout"
        case SQLITE_TOOBIG:
            kind = .valueTooLarge; sentence = "the value is too large for SQLite"
        case SQLITE_CANTOPEN:
            kind = .cannotOpen; sentence = "the database file cannot be opened"
        case SQLITE_PERM where systemErrno == EROFS:
            kind = .readOnly; sentence = "the database is on a read-only file system"
        case SQLITE_PERM, SQLITE_AUTH:
            // Denied by the operating system or an authorizer: not a read-only file, and
            // waiting or retrying will not help.
            kind = .permissionDenied; sentence = "access to the database was denied"
        default:
            kind = .sqlite; sentence = "SQLite reported an error"
        }
        return DefaultsError(kind, "\(sentence) while \(operation)\(where_)", path: path,
                             sqliteCode: code, sqliteMessage: message)
    }
}
