import Foundation

/// The store's one connection and everything touched only by the thread holding it (see
/// ``DatabaseAccess``): the `defaults` table's statements, the hook recorder, transaction
/// nesting, and the change log.
final class StoreConnection {
    /// The open connection; a closed one while suspended (see ``suspend()``).
    private(set) var database: Database
    let recorder = ChangeRecorder()
    /// Other connections' changes; nil when nobody reads them (in-memory stores, or
    /// `externalChangeDetection: .off`).
    let changeLog: ChangeLog?

    /// Nesting of `transaction { }` / `modify` on this connection; 0 outside any.
    var transactionDepth = 0
    /// Set when SQLite abandoned an open transaction by itself (an I/O, full-disk or memory
    /// error in any statement, a read included): every later statement of that transaction
    /// must fail, never autocommit piecemeal.
    var transactionAborted: DefaultsError?
    private(set) var isClosed = false
    /// Set while the connection is closed to save descriptors (``ConnectionBudget``); the
    /// change log keeps its position, so ``resume(with:)`` picks up where it left off.
    private(set) var isSuspended = false
    /// The files as they were when the connection was suspended: while they look the same,
    /// nobody can have committed, and the monitor's checks need not reopen it.
    private(set) var suspendedStamp: FileStamp?
    /// `PRAGMA data_version` when the cache was last known to match the file; used only when
    /// there is no change log (see ``refreshDataVersion()``).
    private var cachedDataVersion: Int64 = 0
    /// The writer of rows a replicator wrote in the open transaction (the fleet and its
    /// machine), by key; every other write of this connection is ``DefaultsWriter/current``.
    var replicaWriters: [HashedKey: DefaultsWriter] = [:]
    /// The actor and reason of the outermost open transaction that named them; its writes are
    /// recorded with them (see ``WriterIdentity/attribute(_:actor:reason:_:)``).
    var attribution: WriteAttribution?
    /// Own commits since the log was last pruned.
    var commitsSincePrune = 0
    /// Set when a prune for other writers' commits found the write lock held: the monitor's
    /// next look tries again (see ``pruneIfOverdue()``).
    var prunePending = false

    // The statements of the hot paths, kept here so a write or a read does not look them up
    // by SQL text (hashing ~150 bytes) in the connection's statement cache every time, and
    // BEGIN/COMMIT are not parsed again by sqlite3_exec for every transaction. The
    // transactions' own are used by StoreConnection+Transactions.swift.
    private var selectStatement: Statement?
    private var upsertStatement: Statement?
    private var deleteStatement: Statement?
    var beginStatement: Statement?
    var commitStatement: Statement?
    var beginReadStatement: Statement?

    /// The statement a slot keeps, prepared on first use (and again after a suspension).
    func kept(_ slot: inout Statement?, _ sql: String) throws -> Statement {
        if let statement = slot { return statement }
        let statement = try database.statement(sql)
        slot = statement
        return statement
    }

    /// The largest TEXT or BLOB this store reads or writes (its configuration's).
    let maximumValueLength: Int

    init(database: Database, tracksChanges: Bool, maximumValueLength: Int) throws {
        self.database = database
        self.maximumValueLength = maximumValueLength
        changeLog = tracksChanges ? try ChangeLog(database) : nil
        cachedDataVersion = try database.integer("PRAGMA data_version")
        recorder.install(on: database)
    }

    deinit {
        close()
    }

    /// Checkpoints what it can without waiting, then closes the connection (the last
    /// connection to a file also checkpoints fully and removes the `-wal`; a suspended one was
    /// closed without, see ``suspend()``). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if !isSuspended { release(checkpoint: true) }
    }

    /// Closes the connection but keeps everything else — the change log's position, the
    /// transaction state (none: only an idle connection is suspended) — for ``resume(with:)``.
    /// Only for a file-backed connection.
    /// - Returns: whether it was suspended (not when closed, already suspended, in a transaction,
    ///   or when another connection committed since the monitor's last completed look).
    @discardableResult
    func suspend() -> Bool {
        guard !isClosed, !isSuspended, transactionDepth == 0 else { return false }
        // The stamp stands for "nothing another connection committed that this store has not
        // looked at": while the files still match it, the monitor's checks skip the reopen.
        // So it is taken first and then proved: when `data_version` moved since the last
        // completed look, another connection committed after it (its file event not handled
        // yet) and that commit may be in the stamp, hidden from every later check; the
        // connection stays open for the look instead. A commit after the stamp changes the
        // files, so the check after it reopens and reads the log from the position.
        let path = database.path
        let stamp = FileStamp(path: path)
        if let changeLog {
            guard let version = try? database.integer("PRAGMA data_version"), version == changeLog.dataVersion else { return false }
        }
        // Closing must leave the files as the stamp saw them: the last connection to a file
        // would otherwise checkpoint it and remove the -wal. The next writer's checkpoint
        // takes the -wal instead.
        database.neverCheckpointOnClose()
        release(checkpoint: false)
        isSuspended = true
        suspendedStamp = stamp
        return true
    }

    /// Takes a freshly opened connection to the same file in place of the suspended one.
    func resume(with database: Database) throws {
        guard isSuspended, !isClosed else { return }
        self.database = database
        isSuspended = false
        suspendedStamp = nil
        recorder.install(on: database)
        // data_version is per connection: the next check compares from the log's position.
        changeLog?.connectionChanged()
        cachedDataVersion = try database.integer("PRAGMA data_version")
    }

    private func release(checkpoint: Bool) {
        // A read-only connection writes nothing, a checkpoint included: preparing it would only
        // cost a failed statement at every close.
        if checkpoint, !database.isReadOnly, database.path.hasPrefix("/") { try? database.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        recorder.uninstall(from: database)
        selectStatement = nil
        upsertStatement = nil
        deleteStatement = nil
        beginStatement = nil
        commitStatement = nil
        beginReadStatement = nil
        database.close()
    }

    /// Without a change log, the cache can only be trusted while no other connection has
    /// committed: returns true when one has since the last call (the caller drops the cache).
    func refreshDataVersion() throws -> Bool {
        let version = try database.integer("PRAGMA data_version")
        defer { cachedDataVersion = version }
        return version != cachedDataVersion
    }

    // MARK: Rows

    func read(_ key: String) throws -> SQLiteValue? {
        if let aborted = transactionAborted { throw aborted }
        let statement = try kept(&selectStatement, "SELECT value FROM defaults WHERE key = ?1")
        do {
            let value = try statement.withBorrowedText(key, at: 1) {
                try statement.step() ? statement.value(at: 0) : nil
            }
            switch value {
            case .text(let text) where text.utf8.count > maximumValueLength:
                throw tooLarge(text.utf8.count, key: key)
            case .invalidUTF8Text(let bytes) where bytes.count > maximumValueLength:
                throw tooLarge(bytes.count, key: key)
            case .blob(let bytes) where bytes.count > maximumValueLength:
                throw tooLarge(bytes.count, key: key)
            default:
                return value
            }
        } catch let error as DefaultsError {
            noteFailure(error)
            throw error
        }
    }

    private func tooLarge(_ length: Int, key: String) -> DefaultsError {
        DefaultsError(.valueTooLarge, "the stored value of key '\(key)' is \(length) bytes; this store's limit is \(maximumValueLength)", key: key)
    }

    /// After a failed statement inside a transaction: if SQLite rolled the transaction back by
    /// itself, remember it, so the rest of the body fails instead of committing piecemeal.
    private func noteFailure(_ error: DefaultsError) {
        if transactionDepth > 0, !database.isInTransaction, transactionAborted == nil {
            transactionAborted = DefaultsError(error.code, "\(error.message); SQLite abandoned the transaction, so nothing in it was committed",
                                               key: error.key, path: error.path, sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
        }
    }

    /// Deletes every row, whatever its key's bytes, each as its own recorded write, so
    /// observers hear every key removed once the transaction commits.
    func removeAll() throws {
        if let aborted = transactionAborted { throw aborted }
        let rows = try database.statement("SELECT rowid, key FROM defaults WHERE typeof(key) = 'text'")
        var found: [(rowid: Int64, key: String)] = []
        do {
            defer { rows.reset() }
            while try rows.step() { found.append((rows.int64(at: 0), rows.text(at: 1))) }
        }
        // By rowid, not by key: a key that is not valid UTF-8 has no String that names it.
        let delete = try database.statement("DELETE FROM defaults WHERE rowid = ?1")
        for row in found {
            try delete.bind(row.rowid, at: 1)
            defer { delete.reset() }
            try step(delete, key: HashedKey(row.key), value: nil)
        }
    }

    /// Writes one row (`nil` deletes it) and records the change for delivery after commit.
    ///
    /// The upsert leaves the row alone when it already holds this exact value (same
    /// storage class too), so rewriting a value fires no hook and logs nothing. A REAL zero is
    /// always written: SQL compares -0.0 and 0.0 as equal, and a change of sign must land.
    ///
    /// The library judges its own writes (Migrations/0015): whether a text is JSON is decided
    /// here, in Swift, and passed to the statement, which reads the key's declaration itself and
    /// fails, changing nothing, when the file declares the key `json` and the text is not, or
    /// declares it secret and this write is not the sealed kind (see
    /// ``writeSealed(_:_:isJSON:)``). So a declaration another process committed a moment ago is
    /// obeyed, and the triggers' grammar walk never runs for this library.
    func write(_ key: HashedKey, _ value: SQLiteValue?) throws {
        if let aborted = transactionAborted { throw aborted }
        guard let value else {
            let statement = try kept(&deleteStatement, "DELETE FROM defaults WHERE key = ?1")
            do {
                try statement.withBorrowedText(key.name, at: 1) { try step(statement, key: key, value: nil) }
            } catch let error as DefaultsError {
                throw refusal(error, writing: nil, to: key.name)
            }
            return
        }
        if database.isReadOnly {
            // SQLite refuses it, by name (read-only), before reading anything: the upsert below
            // could not even be prepared on a file no writer has migrated (no `defaults_schema`).
            let statement = try database.statement("INSERT INTO defaults(key, value) VALUES (?1, ?2)")
            try statement.withBorrowedText(key.name, at: 1) {
                try statement.withBorrowedValue(value, at: 2) { try step(statement, key: key, value: value) }
            }
            return
        }
        let isJSON = Self.isJSON(value)
        do {
            do {
                try upsert(key, value, isJSON: isJSON, sealing: false)
            } catch let error as DefaultsError where error.code == .sqlite {
                // Held back (the statement wrote NULL, which the declaration refused), or
                // refused for another reason: the file's declaration, read again, tells which.
                // Neither json nor secret now (undeclared since, or another refusal): once more
                // as it was, and a refusal this time is the declaration's own.
                guard let held = try heldBack(key.name) else { return try upsert(key, value, isJSON: isJSON, sealing: false) }
                if held.json, !isJSON { throw Self.notJSON(key.name) }
                guard held.secret else { throw error }
                try writeSealed(key, value, isJSON: isJSON)
            }
        } catch let error as DefaultsError {
            // The library knows what it wrote: a declaration's refusal is told by the key and
            // the value, not by SQLite's message (see DeclarationRefusal).
            throw refusal(error, writing: value, to: key.name)
        }
    }

    /// Runs the upsert of `value` to `key`. On its own, it is an autocommit statement: the
    /// change log's trigger records this process as its writer in the same statement
    /// (WriterIdentity), so nothing has to run between it and its commit.
    ///
    /// Held back by the file's declaration of the key, as ``write(_:_:)`` says, it writes NULL
    /// instead of `value`: every declared key refuses NULL (the triggers' check), so the
    /// statement fails, having changed nothing. (An `INSERT … SELECT … WHERE` that wrote no row
    /// would say so without an error, but SQLite runs such a SELECT into a temporary table
    /// first whenever the table has triggers: 13 allocations more on every write, measured.)
    func upsert(_ key: HashedKey, _ value: SQLiteValue, isJSON: Bool, sealing: Bool) throws {
        // When ?3 and ?4 are both 1, the declaration is not looked up at all. The lookup reads
        // `defaults_schema_held_back`, a partial index of the keys declared `json` or secret
        // that covers the query: one cursor, where the table's own key index and its rows took
        // two (one allocation more on every write, measured). SQLite's planner prefers the
        // unique index, hence INDEXED BY. The index exists from schema 15 on, so this statement
        // is never run against an older schema's triggers (see ``bringForward()``).
        let statement = try kept(&upsertStatement, """
            INSERT INTO defaults(key, value) VALUES (?1, CASE WHEN (?3 AND ?4) OR NOT EXISTS (SELECT 1 FROM defaults_schema
                INDEXED BY defaults_schema_held_back WHERE key = ?1 AND (type = 'json' OR secret = 1)
                AND (type = 'json' AND NOT ?3 OR secret = 1 AND NOT ?4)) THEN ?2 END)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value
            WHERE value IS NOT excluded.value OR typeof(value) IS NOT typeof(excluded.value)
               OR (typeof(excluded.value) = 'real' AND excluded.value = 0.0)
            """)
        func run() throws {
            try statement.bind(isJSON ? 1 : 0, at: 3)
            try statement.bind(sealing ? 1 : 0, at: 4)
            try statement.withBorrowedText(key.name, at: 1) {
                try statement.withBorrowedValue(value, at: 2) { try step(statement, key: key, value: value) }
            }
        }
        do {
            try run()
        } catch let error as DefaultsError where error.code == .sqlite && (try? SchemaVersion.of(database)).map({ $0 < .latest }) == true {
            try bringForward()
            try run()
        }
    }

    /// Steps a bound write statement, recording its change for delivery after the commit.
    private func step(_ statement: Statement, key: HashedKey, value: SQLiteValue?) throws {
        recorder.begin(key: key, value: value)
        // Outside a transaction a write that meets a busy database after the busy timeout, or a
        // stale WAL snapshot, changed nothing: retrying it is safe.
        var attempt = 0
        while true {
            do {
                _ = try statement.step()
                recorder.statementSucceeded()
                return
            } catch let error as DefaultsError where error.code == .busy && transactionDepth == 0 && attempt < 3 {
                attempt += 1
                statement.rewind()  // keeps the bindings for the retry
            } catch {
                recorder.statementFailed()
                if let error = error as? DefaultsError { noteFailure(error) }
                throw error
            }
        }
    }
}
