import Foundation

extension DefaultsError.Code {
    /// Matches an error thrown by SQLiteDefaults against a code, so that a `catch` names the
    /// failure it handles, as GRDB's result codes do:
    ///
    /// ```swift
    /// do {
    ///     let timeout = try store.value(for: .timeout)
    /// } catch DefaultsError.Code.typeMismatch {
    ///     try store.remove(.timeout)   // stored by someone else as another type
    /// }
    /// ```
    ///
    /// - Returns: whether `error` is a ``DefaultsError`` with this code.
    public static func ~= (code: DefaultsError.Code, error: any Error) -> Bool {
        (error as? DefaultsError)?.code == code
    }
}

/// The one error type SQLiteDefaults throws.
///
/// Every error says in plain words what went wrong and, where SQLite reported it, carries
/// SQLite's result code and message. Match on ``code`` to handle a kind of failure:
///
/// ```swift
/// do {
///     let store = try DefaultsStore(path: path)
/// } catch let error as DefaultsError where error.code == .notADatabase {
///     print("not a preferences file:", error)
/// }
/// ```
public struct DefaultsError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; stable across releases, suitable for `catch` and `switch`.
    ///
    /// A struct rather than an enum, as GRDB's `ResultCode` is, so that a later release can add
    /// a code without breaking a user's `switch`: match the codes you handle and keep a
    /// `default:` for the rest.
    ///
    /// ```swift
    /// switch error.code {
    /// case .closed: reopen()
    /// case .busy: retryLater()
    /// default: throw error
    /// }
    /// ```
    public struct Code: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The code's stable name, such as `"notADatabase"`.
        public let rawValue: String

        /// A code by name. Codes this library does not define are allowed, so that a
        /// ``DefaultsSerializable`` conformance can report its own.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's name.
        public var description: String { rawValue }

        /// A key name that cannot be stored, such as the empty string.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// A name for ``DefaultsStore/standard(name:configuration:)`` that is empty or is not a single path component.
        public static let invalidName = Code(rawValue: "invalidName")
        /// The stored value has a SQLite storage class the key's type cannot be decoded from.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// The stored value has the right storage class but its content (JSON, raw value, range) does not decode.
        public static let decodingFailed = Code(rawValue: "decodingFailed")
        /// The value could not be encoded for storage (for example, a `Codable` type threw while encoding).
        public static let encodingFailed = Code(rawValue: "encodingFailed")
        /// The value is larger than SQLite (or ``DefaultsStore/Configuration/maximumValueLength``) accepts.
        public static let valueTooLarge = Code(rawValue: "valueTooLarge")
        /// The path names a directory, not a database file.
        public static let isDirectory = Code(rawValue: "isDirectory")
        /// A missing parent directory of the database could not be created.
        public static let cannotCreateDirectory = Code(rawValue: "cannotCreateDirectory")
        /// The database file could not be opened.
        public static let cannotOpen = Code(rawValue: "cannotOpen")
        /// The file exists but is not a SQLite database. It was left untouched.
        public static let notADatabase = Code(rawValue: "notADatabase")
        /// The database was written by a newer version of this library. It was left untouched.
        public static let newerSchema = Code(rawValue: "newerSchema")
        /// Applying a schema migration failed; the database was rolled back to its previous version.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// The database file is damaged.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The disk (or the process's file size limit) is full; the write did not happen.
        public static let diskFull = Code(rawValue: "diskFull")
        /// The database cannot be written: read-only file, directory or file system.
        public static let readOnly = Code(rawValue: "readOnly")
        /// The operating system (or an authorizer) denied access to the database or one of its
        /// files; unlike ``readOnly`` the file itself is not read-only.
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// Another connection held the database lock for longer than the busy timeout.
        public static let busy = Code(rawValue: "busy")
        /// The operating system reported an I/O error.
        public static let ioError = Code(rawValue: "ioError")
        /// The database file was deleted or replaced while this store had it open.
        public static let databaseReplaced = Code(rawValue: "databaseReplaced")
        /// The file is a SQLite database of another program: it has tables this library did
        /// not create. It was left byte for byte as it was; see
        /// ``DefaultsStore/Configuration/allowsOtherTables``.
        public static let foreignDatabase = Code(rawValue: "foreignDatabase")
        /// The database, its `-wal` or its `-shm` can be written by other users (group- or
        /// world-writable, or owned by another user who is not root); nothing was read or
        /// written. See ``DefaultsStore/Configuration/allowsUnsafePermissions``.
        public static let unsafePermissions = Code(rawValue: "unsafePermissions")
        /// Reported, not thrown (on ``DefaultsStore/reportedErrors()`` and as a logged warning):
        /// a `-wal` file left behind by a crashed process did not belong to the database file
        /// beside it — a backup restored over the file, another database's log — so replaying
        /// it would have mixed two databases. It was moved aside, kept under the name the
        /// message gives, and the database was opened as the file holds it.
        public static let walSetAside = Code(rawValue: "walSetAside")
        /// Any other SQLite failure; see ``sqliteCode`` and ``message``.
        public static let sqlite = Code(rawValue: "sqlite")
        /// The store was closed (``DefaultsStore/close()``, or its last reference went away):
        /// nothing can be read from or written to it any more.
        public static let closed = Code(rawValue: "closed")
        /// A ``DefaultsStore/Configuration`` value is out of range (for example a zero or
        /// negative safety poll interval in ``DefaultsStore/Configuration/externalChangeDetection``).
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// An API was used where it cannot work, such as ``DefaultsStore/close()`` from inside
        /// one of the store's own transactions.
        public static let misuse = Code(rawValue: "misuse")
        /// A value and a declared key disagree: a write of a value its declaration refuses
        /// (wrong storage class, invalid JSON, a `bool` other than 0/1, a value not among the
        /// allowed ones), or a declaration that the key's stored value (or its own default)
        /// breaks. Nothing was changed. See `DefaultsStore.declare(_:)`.
        public static let declarationConflict = Code(rawValue: "declarationConflict")
        /// The SQLite library the process runs on is older than ``SQLiteLibrary/minimumVersion``;
        /// the message names the version found and the one needed. Nothing was created or written.
        public static let unsupportedSQLite = Code(rawValue: "unsupportedSQLite")
        /// A conditional write found the key at another version than the one it was given
        /// (``DefaultsError/currentVersion`` says which); nothing was written.
        public static let versionConflict = Code(rawValue: "versionConflict")
        /// An actor or reason given for a write is longer than the library keeps (256 and
        /// 16,384 UTF-8 bytes); nothing was written.
        public static let invalidAttribution = Code(rawValue: "invalidAttribution")
        /// The history keeps no value of the change asked for (no such change, or one whose
        /// value it could not keep).
        public static let notInHistory = Code(rawValue: "notInHistory")
        /// A change feed was asked for changes after a sequence older than the oldest the
        /// history still keeps (``DefaultsError/oldestKeptSequence`` says which): the changes in
        /// between were pruned, so the feed ends rather than skip them.
        public static let historyCompacted = Code(rawValue: "historyCompacted")
        /// A change feed was asked for changes after a sequence newer than the newest the file
        /// holds: a sequence of another file, or the file went back to an older state (a
        /// backup restored under it).
        public static let historyRewound = Code(rawValue: "historyRewound")
        /// Every code this library's core defines (the fleet's codes, such as `.unreachable`,
        /// live in `SQLiteDefaultsPostgres` and are not listed), for `CaseIterable`.
        ///
        /// ```swift
        /// for code in DefaultsError.Code.allCases { print(code) }
        /// ```
        public static let allCases: [Code] = [
            .invalidKey,
            .invalidName,
            .typeMismatch,
            .decodingFailed,
            .encodingFailed,
            .valueTooLarge,
            .isDirectory,
            .cannotCreateDirectory,
            .cannotOpen,
            .notADatabase,
            .newerSchema,
            .migrationFailed,
            .corrupt,
            .diskFull,
            .readOnly,
            .permissionDenied,
            .busy,
            .ioError,
            .databaseReplaced,
            .foreignDatabase,
            .unsafePermissions,
            .walSetAside,
            .sqlite,
            .closed,
            .invalidConfiguration,
            .misuse,
            .declarationConflict,
            .unsupportedSQLite,
            .versionConflict,
            .invalidAttribution,
            .notInHistory,
            .historyCompacted,
            .historyRewound,
        ]
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence a user can act on.
    public let message: String
    /// The key involved, when the failure concerns one key.
    public let key: String?
    /// The database path involved, when the failure concerns the file.
    public let path: String?
    /// SQLite's extended result code, when SQLite reported the failure.
    public let sqliteCode: Int32?
    /// SQLite's own error message, when SQLite reported the failure.
    public let sqliteMessage: String?
    /// The kind of ``sqliteCode`` (its primary code), for the package's own modules: they tell
    /// failures apart by kind, never by SQLite's numbers.
    package var sqliteResult: SQLiteResultKind? { sqliteCode.map(SQLiteResultKind.init(code:)) }
    /// For `.versionConflict`: the key's version when the write was refused (the sequence
    /// number of its newest change, 0 when none is kept); `nil` for every other error.
    public internal(set) var currentVersion: Int64? = nil
    /// For `.historyCompacted` and `.historyRewound`: the oldest sequence the history still
    /// keeps (a feed can start again from the one before it, knowing what it missed); `nil`
    /// for every other error, and for `.historyRewound` on a file whose history keeps no change.
    public internal(set) var oldestKeptSequence: Int64? = nil
    /// The operating system's `errno` behind a failure to open, where SQLite kept one.
    let systemErrno: Int32

    /// Creates an error. Library code and custom ``DefaultsSerializable`` conformances use this
    /// to report failures in the same vocabulary.
    public init(
        _ code: Code,
        _ message: String,
        key: String? = nil,
        path: String? = nil,
        sqliteCode: Int32? = nil,
        sqliteMessage: String? = nil
    ) {
        self.init(code, message, key: key, path: path, sqliteCode: sqliteCode, sqliteMessage: sqliteMessage, systemErrno: 0)
    }

    /// The same, with the `errno` SQLite kept for a failed open.
    init(_ code: Code, _ message: String, key: String? = nil, path: String?, sqliteCode: Int32?, sqliteMessage: String?, systemErrno: Int32) {
        self.code = code
        self.message = message
        self.key = key
        self.path = path
        self.sqliteCode = sqliteCode
        self.sqliteMessage = sqliteMessage
        self.systemErrno = systemErrno
    }

    /// Whether the process (or the system) ran out of file descriptors.
    var isOutOfDescriptors: Bool { systemErrno == EMFILE || systemErrno == ENFILE }

    /// The message, followed by SQLite's code and message where SQLite reported the failure.
    public var description: String {
        var text = message
        if let sqliteCode {
            text += " (SQLite error \(sqliteCode)"
            if let sqliteMessage, !sqliteMessage.isEmpty { text += ": \(sqliteMessage)" }
            text += ")"
        }
        return text
    }

    /// A copy of this error that names `key`, for errors raised below the level that knows it.
    func naming(key: String) -> DefaultsError {
        guard self.key == nil else { return self }
        return DefaultsError(code, "\(message) for key '\(key)'", key: key, path: path,
                             sqliteCode: sqliteCode, sqliteMessage: sqliteMessage)
    }
}
