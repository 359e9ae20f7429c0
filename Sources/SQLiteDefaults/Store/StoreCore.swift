import CSQLiteDefaults
import Foundation
import Logging
import Synchronization

/// The engine behind a ``DefaultsStore``: one connection behind ``DatabaseAccess``, the
/// value cache, the observer registry and delivery queue, and the external-change monitor.
///
/// Lock order, never reversed: database → cache / registry / delivery queue (each taken
/// briefly). Observers are called by ``DeliveryQueue/deliver()`` with no lock held.
final class StoreCore: Sendable {
    let path: String?
    let configuration: DefaultsStore.Configuration
    let access: DatabaseAccess
    let cache = ValueCache()
    let registry = ObserverRegistry()
    let delivery: DeliveryQueue
    let failures: WriteFailureReporter
    /// Set when the database file was deleted or replaced underneath the store.
    private let lost = Mutex<DefaultsError?>(nil)
    /// (device, inode) of the file opened, to recognise a replacement.
    private let fileIdentity: FileIdentity?

    init(path: String?, configuration: DefaultsStore.Configuration) throws {
        self.path = path
        self.configuration = configuration
        self.delivery = DeliveryQueue(registry: registry)
        self.failures = WriteFailureReporter(logger: configuration.logger)

        let database: Database
        if let path {
            try FileSetup.prepare(path: path)
            database = try Database(path: path, create: false)
            fileIdentity = FileIdentity(path: path)
        } else {
            database = try Database(path: ":memory:", create: true)
            fileIdentity = nil
        }
        do {
            try Self.configure(database, configuration: configuration, isFile: path != nil)
        } catch {
            // Refused (not a database, newer schema, a -wal of another database, damaged,
            // migration failed): closing this, the last connection, must not checkpoint an
            // existing -wal into the file and delete it — the refusal leaves both as they were.
            _ = csqlitedefaults_db_config_int(database.handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nil)
            throw error
        }
        let state = ConnectionState(database: database, tracksChangeLog: path != nil && configuration.observesExternalChanges)
        if state.tracksChangeLog { try state.startTrackingChangeLog() }
        access = DatabaseAccess(state: state)
    }

    /// Checks, configures and migrates a freshly opened connection. Nothing is written to
    /// the file before it is known to be a database of a schema this library understands.
    private static func configure(_ database: Database, configuration: DefaultsStore.Configuration, isFile: Bool) throws {
        let milliseconds = configuration.busyTimeout.components.seconds * 1000
            + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(database.handle, Int32(clamping: milliseconds))
        // The first read is where SQLite notices a file that is not a database.
        do {
            _ = try database.integer("SELECT count(*) FROM sqlite_master")
        } catch let error as DefaultsError where error.code == .notADatabase {
            throw DefaultsError(.notADatabase, "the file at \(database.path) is not a SQLite database; it was left untouched",
                                path: database.path, sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
        }
        if isFile { try WalOwnership.check(database) }
        let migrator = Migrator()
        try migrator.checkNotNewer(database)
        if isFile {
            let mode = try database.statement("PRAGMA journal_mode = WAL")
            defer { mode.reset() }
            _ = try mode.step()
            guard mode.text(at: 0).lowercased() == "wal" else {
                throw DefaultsError(.cannotOpen, "the database at \(database.path) cannot use write-ahead logging (journal mode is \(mode.text(at: 0)))", path: database.path)
            }
        }
        try database.execute("PRAGMA synchronous = \(configuration.synchronous == .full ? "FULL" : "NORMAL")")
        try migrator.migrate(database)
        // After migrating: the limit also caps rows of sqlite_master, which the schema writes.
        sqlite3_limit(database.handle, SQLITE_LIMIT_LENGTH, Int32(clamping: max(configuration.maximumValueLength, 1)))
    }

    // MARK: Guards

    static func validate(_ key: String) throws {
        if key.isEmpty {
            throw DefaultsError(.invalidKey, "a key name must not be empty", key: key)
        }
    }

    private func checkFile() throws {
        if let error = lost.withLock({ $0 }) { throw error }
    }

    private func checkLength(_ value: SQLiteValue, key: String) throws {
        let length: Int
        switch value {
        case .text(let text): length = text.utf8.count
        case .blob(let bytes): length = bytes.count
        default: return
        }
        if length > configuration.maximumValueLength {
            throw DefaultsError(.valueTooLarge, "the value for key '\(key)' is \(length) bytes; the limit is \(configuration.maximumValueLength)", key: key)
        }
    }

    // MARK: Reading

    func value<Value>(for key: DefaultsKey<Value>) throws -> Value {
        // Inside a transaction the cache does not yet hold the transaction's own writes.
        let inTransaction = access.isHeldByCurrentThread
        if !inTransaction {
            switch cache.lookup(key.name) {
            case .decoded(let box) where box.holds(Value.self): return box.load(Value.self)
            case .absent: return key.defaultValue
            default: break
            }
        }
        try Self.validate(key.name)
        return try access.withState { state in
            try checkFile()
            if state.transactionDepth > 0 {
                guard let stored = try state.read(key.name) else { return key.defaultValue }
                return try decode(stored, for: key)
            }
            let stored: SQLiteValue?
            switch cache.lookup(key.name) {
            case .decoded(let box) where box.holds(Value.self): return box.load(Value.self)
            case .decoded: stored = cache.stored(key.name) ?? nil
            case .absent: return key.defaultValue
            case .stored(let value): stored = value
            case .miss:
                stored = try state.read(key.name)
                cache.update(key.name, stored: stored)
            }
            guard let stored else { return key.defaultValue }
            let value = try decode(stored, for: key)
            cache.remember(key.name, decoded: value)
            return value
        }
    }

    private func decode<Value>(_ stored: SQLiteValue, for key: DefaultsKey<Value>) throws -> Value {
        do {
            return try key.codec.decode(stored)
        } catch let error as DefaultsError {
            throw error.naming(key: key.name)
        } catch {
            throw DefaultsError(.decodingFailed, "stored value cannot be decoded as \(Value.self): \(error)", key: key.name)
        }
    }

    /// The row as stored, through the cache.
    func storedValue(_ key: String) throws -> SQLiteValue? {
        if !access.isHeldByCurrentThread, case .some(let cached) = cache.stored(key) { return cached }
        try Self.validate(key)
        return try access.withState { state in
            try checkFile()
            if state.transactionDepth > 0 { return try state.read(key) }
            if case .some(let cached) = cache.stored(key) { return cached }
            let stored = try state.read(key)
            cache.update(key, stored: stored)
            return stored
        }
    }

    func keys() throws -> [String] {
        try access.withState { state in
            try checkFile()
            return try state.keys()
        }
    }

    func entries() throws -> [(key: String, value: SQLiteValue)] {
        try access.withState { state in
            try checkFile()
            return try state.entries()
        }
    }

    // MARK: Writing

    func set<Value>(_ value: Value, for key: DefaultsKey<Value>) throws {
        try Self.validate(key.name)
        let stored: SQLiteValue
        do {
            stored = try key.codec.encode(value)
        } catch let error as DefaultsError {
            throw error.naming(key: key.name)
        } catch {
            throw DefaultsError(.encodingFailed, "\(Value.self) cannot be encoded: \(error)", key: key.name)
        }
        try write(key.name, stored)
    }

    /// Writes or (for `.null`) deletes one row, then delivers the change.
    func write(_ key: String, _ value: SQLiteValue) throws {
        try Self.validate(key)
        try checkLength(value, key: key)
        let row: SQLiteValue? = value == .null ? nil : value
        try access.withState { state in
            try checkFile()
            do {
                try state.write(key, row)
            } catch let error as DefaultsError {
                throw error.naming(key: key)
            }
            if state.transactionDepth == 0 { publishCommitted(state) }
        }
        deliverIfOutermost()
    }

    func remove(_ key: String) throws {
        try write(key, .null)
    }

    /// Runs `body` in one transaction (a savepoint when nested); rolls back and rethrows
    /// whatever it throws, unchanged.
    func transaction<Result>(_ body: (ConnectionState) throws -> Result) throws -> Result {
        let result = try access.withState { state in
            try checkFile()
            try state.begin()
            let mark = state.recorder.mark()
            let result: Result
            do {
                result = try body(state)
            } catch {
                state.rollback(to: mark)
                throw error
            }
            if try state.commit() { publishCommitted(state) }
            return result
        }
        deliverIfOutermost()
        return result
    }

    /// Atomic read-modify-write: the row is read inside `BEGIN IMMEDIATE`, so no other
    /// connection can write between the read and the write.
    func modify<Value, Result>(_ key: DefaultsKey<Value>, _ body: (inout Value) throws -> Result) throws -> Result {
        try Self.validate(key.name)
        return try transaction { state in
            var value: Value
            if let stored = try state.read(key.name) {
                value = try decode(stored, for: key)
            } else {
                value = key.defaultValue
            }
            let result = try body(&value)
            let stored: SQLiteValue
            do {
                stored = try key.codec.encode(value)
            } catch let error as DefaultsError {
                throw error.naming(key: key.name)
            }
            try checkLength(stored, key: key.name)
            try state.write(key.name, stored == .null ? nil : stored)
            return result
        }
    }

    /// After a commit (database lock held): the cache takes the committed values, and
    /// observed changes join the delivery queue in commit order. A key written several times
    /// is announced once, with its final value; a key left as it was, not at all.
    private func publishCommitted(_ state: ConnectionState) {
        state.recorder.consumeCommitted { changes in
            state.noteCommitted(changes.logSequences)
            if changes.writes.count == 1 {
                // The autocommit `set`: no batch to build.
                let write = changes.writes[0]
                let previous = cache.update(write.key, stored: write.value)
                if case .some(let old) = previous, SQLiteValue.isSameRow(old, write.value) { return }
                if registry.isObserved(write.key) {
                    delivery.enqueue(.init(key: write.key, value: write.value, origin: .local))
                }
            } else if !changes.writes.isEmpty {
                let changed = cache.apply(changes.finalValues())
                for write in registry.observed(among: changed) {
                    delivery.enqueue(.init(key: write.key, value: write.value, origin: .local))
                }
            }
        }
    }

    /// Delivers queued changes unless this thread is still inside the database lock (a
    /// nested call in a transaction): the outermost call delivers them.
    func deliverIfOutermost() {
        if !access.isHeldByCurrentThread { delivery.deliver() }
    }

    // MARK: Observation

    func addObserver(key: String?, onStoreClosed: (@Sendable () -> Void)? = nil,
                     deliver: @escaping @Sendable (String, SQLiteValue?, DefaultsChangeOrigin) -> Void) -> Observer {
        // Cache the observed row and register in one step under the database lock, so every
        // change the monitor reports afterwards is compared with the value the observer
        // started from: a change committed before `observe` returned is never re-announced.
        let primed = try? access.withState { state -> Observer in
            if let key, state.transactionDepth == 0, !cache.contains(key), lost.withLock({ $0 }) == nil {
                cache.update(key, stored: try state.read(key))
            }
            return registry.add(key: key, onStoreClosed: onStoreClosed, deliver: deliver)
        }
        return primed ?? registry.add(key: key, onStoreClosed: onStoreClosed, deliver: deliver)
    }

    // MARK: External changes

    /// Finds what other connections committed and delivers it. Runs on the monitor thread
    /// (or on demand).
    /// - Returns: whether another connection's commit was seen, or the store was too busy to look.
    @discardableResult
    func checkExternalChanges() -> ExternalChangeMonitor.Outcome {
        var sawCommit = false
        var busy = false
        do {
            // The store is busy (usually writing, which itself wakes this monitor): look again
            // in a moment instead of making the writer wait for the monitor.
            busy = try access.withStateIfAvailable { state in
                guard state.tracksChangeLog, lost.withLock({ $0 }) == nil else { return }
                let versionBefore = state.dataVersion
                let changed = try state.externalChanges()
                sawCommit = state.dataVersion != versionBefore
                let keys: [String]
                if let changed {
                    keys = changed
                } else {
                    // The log was pruned past what we saw: re-read everything we hold.
                    keys = Array(Set(cache.cachedKeys).union(registry.observedKeys)).sorted()
                }
                for key in keys where cache.contains(key) || registry.isObserved(key) {
                    let value = try state.read(key)
                    let previous = cache.update(key, stored: value)
                    if case .some(let old) = previous, SQLiteValue.isSameRow(old, value) { continue }
                    if registry.isObserved(key) {
                        delivery.enqueue(.init(key: key, value: value, origin: .external))
                    }
                }
            } == nil
        } catch let error as DefaultsError {
            configuration.logger.warning("SQLiteDefaults: checking for external changes failed: \(error)")
        } catch {
            configuration.logger.warning("SQLiteDefaults: checking for external changes failed: \(error)")
        }
        delivery.deliver()
        return busy ? .busy : (sawCommit ? .sawCommit : .nothingNew)
    }

    /// Called when the database file itself was touched: notices a deletion or replacement.
    func checkFileIdentity() {
        guard let path, let fileIdentity, lost.withLock({ $0 }) == nil else { return }
        let current = FileIdentity(path: path)
        guard current != fileIdentity else { return }
        let error = DefaultsError(
            .databaseReplaced,
            current == nil
                ? "the database file \(path) was deleted while the store had it open; writes would be lost, so they are refused"
                : "the database file \(path) was replaced by another file while the store had it open; open a new store",
            path: path)
        lost.withLock { $0 = error }
        failures.report(error, operation: "watching the database file")
    }
}

/// The device and inode of a file, to tell the file we opened from one put in its place.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
