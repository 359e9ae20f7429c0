import CSQLiteDefaults

/// A failed SQLite call, as SQLite reported it: the result code, what the connection was doing,
/// SQLite's message and the `errno` it kept.
///
/// This folder reports; it never decides what a failure means to a user. The owner of a
/// connection passes a classifier when it opens one (``Database/init(path:create:readOnly:classify:)``),
/// and every failure of that connection is thrown as what the classifier makes of it (the
/// engine makes a ``DefaultsError``; see `Engine/DefaultsError+SQLite.swift`).
struct SQLiteFailure: Error, Sendable {
    /// SQLite's extended result code.
    let code: Int32
    /// What the connection was doing, as a phrase ("running 'SELECT …'").
    let operation: String
    /// The database file, or `:memory:`.
    let path: String
    /// SQLite's own message.
    let message: String?
    /// The `errno` SQLite kept for the failed system call (0 when it kept none).
    let systemErrno: Int32
    /// True when the connection itself could not be opened.
    let isOpening: Bool
}

/// What the owner of a connection makes of its failures.
typealias SQLiteFailureClassifier = @Sendable (SQLiteFailure) -> any Error

/// SQLite's primary result codes that this library tells apart, so that the layers above (and
/// the package's other modules, through ``DefaultsError/sqliteResult``) classify failures
/// without naming SQLite's C constants or their numbers.
package enum SQLiteResultKind: Sendable {
    case error, busy, locked, readOnly, ioError, corrupt, full, cantOpen, constraint, tooBig,
         permission, auth, notADatabase, noMemory, other

    /// The kind of an extended or primary result code.
    package init(code: Int32) {
        switch code & 0xFF {
        case SQLITE_NOMEM: self = .noMemory
        case SQLITE_ERROR: self = .error
        case SQLITE_BUSY: self = .busy
        case SQLITE_LOCKED: self = .locked
        case SQLITE_READONLY: self = .readOnly
        case SQLITE_IOERR: self = .ioError
        case SQLITE_CORRUPT: self = .corrupt
        case SQLITE_FULL: self = .full
        case SQLITE_CANTOPEN: self = .cantOpen
        case SQLITE_CONSTRAINT: self = .constraint
        case SQLITE_TOOBIG: self = .tooBig
        case SQLITE_PERM: self = .permission
        case SQLITE_AUTH: self = .auth
        case SQLITE_NOTADB: self = .notADatabase
        default: self = .other
        }
    }

    /// SQLITE_IOERR: the code of a failed read that SQLite reported in prose, without one.
    static var ioErrorCode: Int32 { SQLITE_IOERR }

    /// Whether an extended code is SQLITE_CONSTRAINT_CHECK (a CHECK constraint failed).
    static func isCheckConstraint(_ code: Int32) -> Bool { code == SQLITE_CONSTRAINT | 1 << 8 }  // a macro Swift does not import
}
