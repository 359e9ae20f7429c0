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
    /// What kind of failure this is; stable across releases, suitable for `switch` and `catch`.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A key name that cannot be stored, such as the empty string.
        case invalidKey
        /// A name for ``DefaultsStore/standard(name:configuration:)`` that is empty or is not a single path component.
        case invalidName
        /// The stored value has a SQLite storage class the key's type cannot be decoded from.
        case typeMismatch
        /// The stored value has the right storage class but its content (JSON, raw value, range) does not decode.
        case decodingFailed
        /// The value could not be encoded for storage (for example, a `Codable` type threw while encoding).
        case encodingFailed
        /// The value is larger than SQLite (or ``DefaultsStore/Configuration/maximumValueLength``) accepts.
        case valueTooLarge
        /// The path names a directory, not a database file.
        case isDirectory
        /// A missing parent directory of the database could not be created.
        case cannotCreateDirectory
        /// The database file could not be opened.
        case cannotOpen
        /// The file exists but is not a SQLite database. It was left untouched.
        case notADatabase
        /// The database was written by a newer version of this library. It was left untouched.
        case newerSchema
        /// Applying a schema migration failed; the database was rolled back to its previous version.
        case migrationFailed
        /// The database file is damaged.
        case corrupt
        /// The disk (or the process's file size limit) is full; the write did not happen.
        case diskFull
        /// The database cannot be written: read-only file, directory or file system.
        case readOnly
        /// Another connection held the database lock for longer than the busy timeout.
        case busy
        /// The operating system reported an I/O error.
        case ioError
        /// The database file was deleted or replaced while this store had it open.
        case databaseReplaced
        /// Any other SQLite failure; see ``sqliteCode`` and ``message``.
        case sqlite
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
        self.code = code
        self.message = message
        self.key = key
        self.path = path
        self.sqliteCode = sqliteCode
        self.sqliteMessage = sqliteMessage
    }

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
