import CSQLiteDefaults
import Foundation

/// One SQLite connection and its statement cache. Not thread-safe: the store serializes all
/// use through its database lock (see `DatabaseAccess`).
final class Database {
    let handle: OpaquePointer
    let path: String
    /// Opened with `SQLITE_OPEN_READONLY`: it can write nothing, a checkpoint included.
    let isReadOnly: Bool
    private var statements: [String: Statement] = [:]
    /// What a failure of this connection is thrown as (see ``SQLiteFailure``).
    private let classify: SQLiteFailureClassifier
    /// The row and rollback hooks' receiver, kept alive while installed.
    private var hooks: HookBox?
    /// The answers of ``defineSwitchableAnswer(_:_:operation:)``'s functions, kept alive here.
    private var switchableAnswers: [String: SwitchableAnswer] = [:]

    /// Opens `path` (or `:memory:`) with explicit flags: read-write (or read-only), no shared
    /// cache, no SQLite-level mutex (the store's lock already serializes use), extended result codes.
    /// - Parameter classify: what each failure is thrown as; by default the ``SQLiteFailure`` itself.
    init(path: String, create: Bool, readOnly: Bool = false, classify: @escaping SQLiteFailureClassifier = { $0 }) throws {
        var handle: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE | SQLITE_OPEN_EXRESCODE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) }
            let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
            if let handle { sqlite3_close_v2(handle) }
            throw classify(SQLiteFailure(code: code, operation: "opening the database", path: path,
                                         message: message ?? String(cString: sqlite3_errstr(code)),
                                         systemErrno: systemErrno, isOpening: true))
        }
        self.handle = handle
        self.path = path
        self.isReadOnly = readOnly
        self.classify = classify
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
        removeHooks()
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
        StatementProbe.stepping(sql, path: path)
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

    /// The error a failed SQLite call is thrown as: SQLite's code, message and `errno`, with
    /// what we were doing, as this connection's owner classifies them.
    func error(_ code: Int32, _ operation: String, message: String? = nil) -> any Error {
        classify(SQLiteFailure(code: code, operation: operation, path: path,
                               message: message ?? String(cString: sqlite3_errmsg(handle)),
                               systemErrno: sqlite3_system_errno(handle), isOpening: false))
    }

    /// The first column of the first row of `sql` as text, through a statement that is not
    /// cached (checks run once per open); nil when there is no row or it fails.
    func firstText(_ sql: String) -> String? {
        Self.firstText(handle, sql)
    }

    private static func firstText(_ handle: OpaquePointer, _ sql: String) -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }

    /// `firstText(sql)` on the main file alone: a read-only `immutable` connection, which
    /// ignores the -wal and -shm and takes no locks, so it writes nothing and waits for no one.
    /// Nil when it cannot be opened or read.
    static func firstTextInMainFileOnly(_ path: String, _ sql: String) -> String? {
        let escaped = path.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        var handle: OpaquePointer?
        defer { if let handle { sqlite3_close_v2(handle) } }
        guard sqlite3_open_v2("file://" + escaped + "?immutable=1", &handle,
                              SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let handle
        else { return nil }
        return firstText(handle, sql)
    }

    // MARK: Settings

    /// How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int64) {
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    }

    /// The largest string or blob SQLite makes or stores on this connection (SQLITE_LIMIT_LENGTH).
    func limitLength(to bytes: Int) {
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: bytes))
    }

    /// Closing the last connection to the file will not checkpoint the -wal into it (and
    /// delete it): for a connection closed after refusing the file, which leaves both as they were.
    func neverCheckpointOnClose() {
        _ = csqlitedefaults_db_config_int(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nil)
    }

    // MARK: Functions

    /// Defines `name()` on this connection to answer `text`, which must live as long as the
    /// process (it is passed to SQLite without a copy).
    ///
    /// Innocuous (it reads nothing and changes nothing, so triggers may call it where
    /// `trusted_schema` is off) and deterministic (the answer is the same for the connection's
    /// whole life, so SQLite may evaluate it once per statement). A trigger binds its functions
    /// when the statement that fires it is prepared: define them before preparing any.
    func defineConstantFunction(_ name: String, answering text: UnsafeMutablePointer<CChar>, operation: String) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(handle, name, 0, flags, UnsafeMutableRawPointer(text), { context, _, _ in
            // SQLITE_STATIC (a nil destructor): the text is never freed.
            sqlite3_result_text(context, sqlite3_user_data(context)?.assumingMemoryBound(to: CChar.self), -1, nil)
        }, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, operation) }
    }

    /// Defines `name()` on this connection to answer the text `answer` holds at the time of each
    /// call: the caller switches it between statements (for one transaction's writes) and back.
    ///
    /// Innocuous, and not deterministic: its answer changes during the connection's life, so
    /// SQLite must not evaluate it once and keep the result. The text is passed without a copy
    /// (SQLITE_STATIC): whoever switches `answer` keeps the previous text alive until no
    /// statement of this connection is running.
    func defineSwitchableAnswer(_ name: String, _ answer: SwitchableAnswer, operation: String) throws {
        switchableAnswers[name] = answer  // kept alive as long as the connection
        let flags = SQLITE_UTF8 | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(handle, name, 0, flags, Unmanaged.passUnretained(answer).toOpaque(), { context, _, _ in
            guard let box = sqlite3_user_data(context) else { return sqlite3_result_null(context) }
            let answer = Unmanaged<SwitchableAnswer>.fromOpaque(box).takeUnretainedValue()
            sqlite3_result_text(context, answer.text, -1, nil)
        }, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, operation) }
    }

    /// The answer of the function `name` that ``defineSwitchableAnswer(_:_:operation:)`` defined.
    func switchableAnswer(named name: String) -> SwitchableAnswer? {
        switchableAnswers[name]
    }

    // MARK: Hooks

    /// Sends SQLite's update and rollback hooks of this connection to `receiver` until
    /// ``removeHooks()`` or ``close()``. The receiver is not retained: its owner keeps it alive
    /// while installed. The commit hook lets every commit proceed.
    func installHooks(_ receiver: any DatabaseHooks) {
        let box = HookBox(receiver: receiver)
        hooks = box
        let context = Unmanaged.passUnretained(box).toOpaque()
        sqlite3_update_hook(handle, { context, operation, _, table, rowid in
            guard let context, let table else { return }
            let change: RowChange = switch operation {
            case SQLITE_INSERT: .insert
            case SQLITE_DELETE: .delete
            default: .update
            }
            Unmanaged<HookBox>.fromOpaque(context).takeUnretainedValue().receiver.rowChanged(change, table: table, rowid: rowid)
        }, context)
        sqlite3_rollback_hook(handle, { context in
            guard let context else { return }
            Unmanaged<HookBox>.fromOpaque(context).takeUnretainedValue().receiver.transactionRolledBack()
        }, context)
        sqlite3_commit_hook(handle, { _ in 0 }, nil)  // commit proceeds; delivery waits for the step to return
    }

    /// Stops the hooks ``installHooks(_:)`` installed.
    func removeHooks() {
        guard hooks != nil else { return }
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
        sqlite3_commit_hook(handle, nil, nil)
        hooks = nil
    }
}

/// What a row hook reports a statement did to one row.
enum RowChange {
    case insert, update, delete
}

/// Receives one connection's row and rollback hooks (see ``Database/installHooks(_:)``).
/// Called inside `sqlite3_step`: it must not use the connection.
protocol DatabaseHooks: AnyObject {
    func rowChanged(_ change: RowChange, table: UnsafePointer<CChar>, rowid: Int64)
    func transactionRolledBack()
}

/// The hooks' context pointer: one class SQLite can hold a plain pointer to, whatever the
/// receiver's type.
private final class HookBox {
    // unowned(unsafe): no reference counting in a hook that runs for every row a statement
    // changes (a checked `unowned` costs a retain and a release per call). Safe because the
    // receiver's owner keeps it alive while the hooks are installed (``Database/installHooks(_:)``),
    // and hooks run only inside this connection's `sqlite3_step`, which that owner drives.
    unowned(unsafe) let receiver: any DatabaseHooks
    init(receiver: any DatabaseHooks) { self.receiver = receiver }
}

/// The text a function of ``Database/defineSwitchableAnswer(_:_:operation:)`` answers: a C
/// string its owner switches between statements. Used only by the thread holding the
/// connection, as the connection itself is.
final class SwitchableAnswer {
    var text: UnsafePointer<CChar>

    init(_ text: UnsafePointer<CChar>) {
        self.text = text
    }
}
