import Foundation
import Logging

/// Typed preferences in a SQLite file: durable when a write returns, observable per key,
/// whoever changes them.
///
/// ```swift
/// extension DefaultsKeys {
///     static let name = DefaultsKey<String>("name", default: "Guest")
/// }
/// let store = try DefaultsStore(path: "/var/lib/app/defaults.sqlite")
/// store[.name] = "Ada"
/// let token = store.observe(.name) { change in print(change.newValue, change.origin) }
/// ```
///
/// A store is `Sendable`: use one object from any thread or task. Several stores — in this
/// process or in others — may share a file; each sees the others' changes as `.external`.
/// Reads are served from a cache that this store's own commits and the process's change
/// monitor keep current. ``close()`` ends the store; so does releasing its last reference.
public final class DefaultsStore: Sendable {
    let core: StoreEngine

    /// The database file, or `nil` for an in-memory store.
    public var path: String? { core.path }

    /// Opens (creating if needed) the database at `path`.
    ///
    /// Missing parent directories are created (mode 0700), a new file is created with mode
    /// 0600, the journal is switched to WAL, and the schema is migrated to this library's
    /// version. A path that is a symbolic link, or lies under one, is watched at its real file.
    ///
    /// - Throws: ``DefaultsError`` — `.invalidConfiguration`, `.isDirectory`,
    ///   `.cannotCreateDirectory`, `.cannotOpen`, `.readOnly`, `.notADatabase` or
    ///   `.newerSchema` (the file is left untouched in the last two cases),
    ///   `.migrationFailed`, `.busy`.
    ///
    /// - Parameters:
    ///   - path: the database file; relative paths are taken from the current directory.
    ///   - configuration: how the store opens and runs the database.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        core = try StoreEngine(path: path, configuration: configuration)
        core.start()
    }

    /// Opens (creating if needed) the database at a file URL.
    /// - Parameters:
    ///   - url: a `file:` URL of the database.
    ///   - configuration: how the store opens and runs the database.
    /// - Throws: the errors of ``init(path:configuration:)``.
    public convenience init(url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(path: url.path, configuration: configuration)
    }

    private init(inMemoryWith configuration: Configuration) throws {
        core = try StoreEngine(path: nil, configuration: configuration)
    }

    /// A private store in memory, for tests and previews: same API and observation, no file,
    /// nothing shared with other stores or processes.
    /// - Throws: ``DefaultsError`` if SQLite cannot allocate the database, or
    ///   `.invalidConfiguration`.
    /// - Parameter configuration: how the store runs the database (file-only settings are ignored).
    public static func inMemory(configuration: Configuration = Configuration()) throws -> DefaultsStore {
        try DefaultsStore(inMemoryWith: configuration)
    }

    deinit {
        // Release is close: safe on any thread, the monitor's own (inside an observer) included,
        // since nothing the monitor thread uses belongs to this store.
        try? core.close()
        core.failures.finishAll()
    }

    // MARK: Lifecycle

    /// Ends the store: checkpoints what it can, stops watching the file, ends every
    /// ``updates(_:initial:)``, ``changes(_:)`` and ``changes()`` sequence, and calls no observer again.
    /// Idempotent; releasing the store's last reference does the same.
    ///
    /// ```swift
    /// try store.close()
    /// store.isClosed            // true
    /// try store.set(1, for: .count)   // throws DefaultsError with code .closed
    /// ```
    ///
    /// Afterwards every throwing call throws ``DefaultsError`` with code `.closed`, the
    /// subscript getter returns the key's default, and the subscript setter reports `.closed`
    /// on ``reportedErrors()``.
    ///
    /// - Throws: ``DefaultsError`` with code `.misuse` when called inside one of this store's
    ///   own transactions (the store stays open).
    public func close() throws {
        try core.close()
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { core.isClosed }

    // MARK: Reading

    /// The stored value, or the key's default when there is none or it cannot be decoded
    /// (use ``value(for:)`` to see why). Setting writes durably; a failed write is logged and
    /// reported on ``reportedErrors()`` and ``lastReportedError``, never dropped silently.
    ///
    /// ```swift
    /// store[.count] += 1   // not atomic across processes: use modify(_:_:) for that
    /// ```
    ///
    /// After ``close()`` the getter returns the default and the setter reports `.closed`.
    public subscript<Value>(key: DefaultsKey<Value>) -> Value {
        get {
            do {
                return try core.value(for: key)
            } catch {
                return key.defaultValue
            }
        }
        set {
            do {
                try core.set(newValue, for: key)
            } catch {
                reportWriteFailure(error, key: key.name)
            }
        }
    }

    /// The stored value, or the key's default when no row exists.
    ///
    /// - Throws: ``DefaultsError`` — `.typeMismatch` when the row's storage class cannot hold
    ///   `Value`, `.decodingFailed` when its content does not decode (the row is left as it
    ///   is), `.invalidKey` for an empty name, `.closed`, `.databaseReplaced`, or a SQLite failure.
    public func value<Value>(for key: DefaultsKey<Value>) throws -> Value {
        try core.value(for: key)
    }

    /// Whether a row exists for the key (false for an empty name or when reading fails).
    public func contains<Value>(_ key: DefaultsKey<Value>) -> Bool {
        do {
            return try core.storedValue(key.name) != nil
        } catch {
            // Not reported any other way (the answer is just `false`), so worth a warning.
            core.configuration.logger.warning("SQLiteDefaults: contains() could not read the key",
                                              metadata: ["key": "\(key.name)", "error": "\(error)"])
            return false
        }
    }

    /// The names of every stored key, sorted.
    ///
    /// Throws as ``entries()-5wpon`` does: an empty list always means an empty table, never a
    /// failed read.
    ///
    /// - Throws: ``DefaultsError`` when the table cannot be read (`.closed`, `.databaseReplaced`,
    ///   `.corrupt`, `.ioError`, …).
    public func keys() throws -> [String] {
        try core.keys()
    }

    /// Every row as stored, sorted by key: one consistent snapshot of the whole table, for
    /// tools that list or export everything.
    ///
    /// ```swift
    /// for entry in try store.entries() { print(entry.key, entry.value.storageClass) }
    /// ```
    ///
    /// TEXT that is not valid UTF-8 comes back byte for byte as ``SQLiteValue/invalidUTF8Text(_:)``.
    /// A key that is not valid UTF-8 (only another client can write one) is listed with U+FFFD
    /// in place of its invalid bytes, a name that does not find its row: tools that must not
    /// change anything ask ``keysNotValidUTF8()`` first.
    ///
    /// - Returns: one ``DefaultsEntry`` per row, sorted by key.
    /// - Throws: ``DefaultsError`` when the table cannot be read (`.closed`, `.databaseReplaced`,
    ///   `.corrupt`, `.ioError`, …).
    public func entries() throws -> [DefaultsEntry] {
        try core.entries().map { DefaultsEntry(key: $0.key, value: $0.value) }
    }

    /// The bytes of every stored key that is not valid UTF-8, in key order; empty for any
    /// store this library alone wrote (every `String` is valid UTF-8). Such a key cannot be
    /// named by a `String`: ``entries()-5wpon`` and ``keys()-9b6xp`` show it changed, and only
    /// ``removeAll()-4dyol`` removes it.
    ///
    /// ```swift
    /// if let bad = try store.keysNotValidUTF8().first { print("cannot export key bytes", Array(bad)) }
    /// ```
    ///
    /// - Throws: ``DefaultsError`` when the table cannot be read, as ``entries()-5wpon`` does.
    public func keysNotValidUTF8() throws -> [Data] {
        try core.keysNotValidUTF8()
    }

    // MARK: Writing

    /// Stores `value`; when this returns, the change is committed to the WAL on disk and
    /// survives the process being killed. Setting an optional key to `nil` removes the row.
    ///
    /// - Throws: ``DefaultsError`` — `.invalidKey`, `.encodingFailed`, `.valueTooLarge`,
    ///   `.diskFull`, `.readOnly`, `.busy`, `.closed`, `.databaseReplaced`, `.ioError`.
    ///   NaN (`Double.nan`, `Float.nan`) is refused with `.encodingFailed`: SQLite would keep it
    ///   as NULL. Nothing is written when it throws.
    public func set<Value>(_ value: Value, for key: DefaultsKey<Value>) throws {
        try core.set(value, for: key)
    }

    /// Removes the key's row, so reads return its default again; observers hear the default.
    /// - Throws: ``DefaultsError`` as ``set(_:for:)-qkes`` does.
    public func remove<Value>(_ key: DefaultsKey<Value>) throws {
        try core.remove(key.name)
    }

    /// Removes every row in one transaction, whatever its key's bytes (a key written by
    /// another client that is not valid UTF-8 included): either all go or, when it throws,
    /// none. Observers hear each removed key once, after the commit, as for ``remove(_:)-2tewr``.
    ///
    /// ```swift
    /// try store.removeAll()
    /// ```
    ///
    /// - Throws: ``DefaultsError`` as ``set(_:for:)-qkes`` does (`.busy`, `.diskFull`, `.readOnly`,
    ///   `.closed`, `.databaseReplaced`, …); nothing is removed when it throws.
    public func removeAll() throws {
        try core.removeAll()
    }

    /// Reads, changes and writes one key atomically, even against other processes: the
    /// read happens inside `BEGIN IMMEDIATE`, so no other writer can slip in between.
    ///
    /// ```swift
    /// try store.modify(.count) { $0 += 1 }
    /// ```
    ///
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws (nothing is written), or ``DefaultsError`` — the stored
    ///   value does not decode (`.typeMismatch`, `.decodingFailed`; it is left as it is), or
    ///   the write fails as in ``set(_:for:)-qkes``.
    @discardableResult
    public func modify<Value, Result>(_ key: DefaultsKey<Value>, _ body: (inout Value) throws -> Result) throws -> Result {
        try core.modify(key, body)
    }

    /// Runs `body` as one transaction: all of its writes commit together or not at all, and
    /// observers hear one notification per changed key, after the commit.
    ///
    /// ```swift
    /// try store.transaction { tx in
    ///     tx[.name] = "Bob"
    ///     tx[.count] = 2
    /// }
    /// ```
    ///
    /// Using the store itself inside `body` (on the same thread) joins the transaction;
    /// nested `transaction` calls become savepoints.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws, unchanged, after rolling everything back; the first
    ///   failure of a non-throwing `tx[key] = value` inside it; or ``DefaultsError`` when the
    ///   transaction cannot begin or commit (`.busy`, `.diskFull`, …).
    @discardableResult
    public func transaction<Result>(_ body: (DefaultsTransaction) throws -> Result) throws -> Result {
        try core.transaction {
            let transaction = DefaultsTransaction(core: core)
            defer { transaction.end() }
            let result = try body(transaction)
            if let failure = transaction.firstFailure { throw failure }
            return result
        }
    }

    // MARK: Failures

    /// Every error the store reports instead of throwing, from now on, as it happens: a failed
    /// non-throwing write (`store[key] = value`), the database file deleted or replaced under
    /// the store (`.databaseReplaced`), a stray write-ahead log moved aside when the file was
    /// opened (`.walSetAside`), a standard store that could not be opened (`.cannotOpen`).
    /// Each is also logged.
    ///
    /// A method, as ``changes()`` is, because each call registers a listener of its own: every
    /// stream returned receives every error reported after the call (an `AsyncStream` has one
    /// consumer, so listeners never share one). Call it once per listener and keep the stream;
    /// ending the loop or cancelling its task unregisters it, and it finishes when the store
    /// goes away.
    ///
    /// ```swift
    /// Task {
    ///     for await error in store.reportedErrors() where error.code == .databaseReplaced {
    ///         reopen()
    ///     }
    /// }
    /// ```
    ///
    /// Bounded: each stream holds at most ``reportedErrorsBufferLimit`` errors its consumer has
    /// not read, the newest (older unread ones are dropped: the newest say what is wrong now,
    /// and ``lastReportedError`` always holds the last).
    ///
    /// - Returns: a new stream of the errors reported from now on.
    public func reportedErrors() -> AsyncStream<DefaultsError> {
        core.failures.stream()
    }

    /// How many unread errors a ``reportedErrors()`` stream holds at most before it drops the oldest.
    public static let reportedErrorsBufferLimit = WriteFailureReporter.bufferLimit

    /// The most recent error of ``reportedErrors()`` (one that happened before anyone listened
    /// included, such as a log set aside while opening); `nil` if there has been none.
    public var lastReportedError: DefaultsError? {
        core.failures.last
    }

    func reportWriteFailure(_ error: any Error, key: String) {
        let defaultsError = error as? DefaultsError
            ?? DefaultsError(.sqlite, "writing key '\(key)' failed: \(error)", key: key)
        core.failures.report(defaultsError, operation: "writing key '\(key)'")
    }
}
