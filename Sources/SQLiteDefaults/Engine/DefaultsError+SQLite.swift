import Foundation

// Classifying what a connection reports (`SQLiteFailure`) into the error a user can act on.
// The connection only reports SQLite's code, message and errno; what they mean to a user —
// a full disk, a damaged file, a busy lock — is decided here, one layer up.

extension DefaultsError {
    /// The error a user can act on for a failure a connection of this library reported: passed
    /// to every ``Database`` the engine opens.
    @Sendable
    static func classifying(_ failure: SQLiteFailure) -> any Error {
        if failure.isOpening {
            return DefaultsError(.cannotOpen, "cannot open the database at \(failure.path)", path: failure.path,
                                 sqliteCode: failure.code, sqliteMessage: failure.message, systemErrno: failure.systemErrno)
        }
        var systemErrno = failure.systemErrno
        // SQLite reports a write refused with EFBIG (the file size limit) or EDQUOT (a quota)
        // as a plain SQLITE_IOERR_WRITE and does not keep that errno (sqlite3_system_errno is
        // 0 by then): look at the files themselves to tell a full disk from a failing one.
        if SQLiteResultKind(code: failure.code) == .ioError, systemErrno == 0, FileSpace.isExhausted(forDatabase: failure.path) {
            systemErrno = ENOSPC
        }
        return DefaultsError.sqlite(failure.code, operation: failure.operation, path: failure.path,
                                    message: failure.message, systemErrno: systemErrno)
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
        switch SQLiteResultKind(code: code) {
        case .notADatabase:
            kind = .notADatabase; sentence = "the file is not a SQLite database"
        case .corrupt:
            kind = .corrupt; sentence = "the database file is damaged"
        case .full:
            kind = .diskFull; sentence = "the disk is full"
        case .ioError where systemErrno == ENOSPC || systemErrno == EFBIG || systemErrno == EDQUOT:
            kind = .diskFull; sentence = "the disk is full (or the file size limit was reached)"
        case .ioError:
            kind = .ioError; sentence = "an I/O error occurred"
        case .readOnly:
            kind = .readOnly; sentence = "the database is read-only"
        case .busy, .locked:
            kind = .busy; sentence = "the database stayed locked by another connection past the busy timeout"
        case .tooBig:
            kind = .valueTooLarge; sentence = "the value is too large for SQLite"
        case .cantOpen:
            kind = .cannotOpen; sentence = "the database file cannot be opened"
        case .permission where systemErrno == EROFS:
            kind = .readOnly; sentence = "the database is on a read-only file system"
        case .permission, .auth:
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
