import Foundation
import Logging
import Synchronization

/// The engine behind a ``DefaultsStore``: one read path through the cache, one write path
/// for `set`, `remove`, `modify` and `transaction`, and the publishing of committed changes
/// to the cache and the delivery queue. Other connections' changes come in through
/// `StoreEngine+ExternalChanges.swift`; the connection itself is ``StoreConnection``.
///
/// Lock order, never reversed: database → cache / registry / delivery queue (each taken
/// briefly). Observers are called by ``DeliveryQueue/deliver()`` with no lock held.
final class StoreEngine: Sendable {
    /// The path the store was opened with (absolute), and the file it names with symbolic
    /// links resolved (SQLite keeps `-wal` and `-shm` beside that one).
    let path: String?
    let realPath: String?
    let configuration: DefaultsStore.Configuration
    let access: DatabaseAccess<StoreConnection>
    let cache = ValueCache()
    let registry = ObserverRegistry()
    let delivery: DeliveryQueue
    /// Wakes the change feeds after commits that may have grown the log.
    let commitSignal = CommitSignal()
    let failures: WriteFailureReporter
    /// Whether a cached value can be served without asking the file: in memory, or while a
    /// change log keeps the cache current. Without one, each read first asks SQLite whether
    /// another connection committed (`PRAGMA data_version`).
    let cacheIsCurrent: Bool
    /// Set once by ``close()``; read without the database lock by the cached read path.
    let closed = Atomic<Bool>(false)
    /// Set when the database file was deleted or replaced underneath the store.
    let lost = Mutex<DefaultsError?>(nil)
    /// Whether ``lost`` is set: read without a lock by the cached read path, so that a value
    /// cached before the file was replaced is not served afterwards (set after ``lost``).
    let isLost = Atomic<Bool>(false)
    /// (device, inode) of the file opened, to recognise a replacement.
    let fileIdentity: FileIdentity?
    let registration = Mutex<MonitorRegistration?>(nil)
    /// When the connection was last used, on ``ConnectionBudget``'s use clock.
    private let lastUseTick = Atomic<UInt64>(0)
    /// The last failure of a background check that was logged, so a repeating one is logged once.
    let lastCheckFailure = Mutex<String?>(nil)
    /// Commits, external changes and the monitor's looks, for swift-metrics.
    let metrics: EngineMetrics
    /// Where the store's async calls run (see ``StoreThread``).
    let storeThread: StoreThread

    /// - Parameter path: the database file as the user named it (relative to the current
    ///   directory, or absolute), or nil for memory.
    init(path: String?, configuration: DefaultsStore.Configuration) throws {
        let path = path.map(FileSetup.absolutePath)
        try configuration.validate()
        try SQLiteLibrary.checkSupported()
        var configuration = configuration
        // A read-only store has no change log to follow: each read asks SQLite instead.
        if configuration.isReadOnly { configuration.externalChangeDetection = .off }
        self.configuration = configuration
        self.delivery = DeliveryQueue(registry: registry)
        metrics = EngineMetrics(factory: configuration.metricsFactory)
        let failures = WriteFailureReporter(logger: configuration.logger)
        self.failures = failures
        storeThread = StoreThread(busyTimeout: configuration.busyTimeout, path: path)
        let report = { (notice: DefaultsError) in failures.report(notice, operation: "opening the database", warns: true) }
        if let path {
            if configuration.isReadOnly {
                try FileSetup.requireExisting(path: path)
            } else {
                try FileSetup.prepare(path: path)
            }
            let realPath = FileSetup.realPath(path)
            if !configuration.allowsUnsafePermissions { try FilePermissions.check(realPath: realPath) }
            self.path = path
            self.realPath = realPath
            access = DatabaseAccess(state: try StoreOpener.open(realPath: realPath, configuration: configuration, report: report))
            fileIdentity = FileIdentity(path: realPath)
            cacheIsCurrent = configuration.watchesExternalChanges
        } else {
            self.path = nil
            realPath = nil
            access = DatabaseAccess(state: try StoreOpener.open(realPath: nil, configuration: configuration, report: report))
            fileIdentity = nil
            cacheIsCurrent = true
        }
    }

    /// Registers the file with the process's monitor and connection budget. Separate from
    /// `init` so they can hold the engine weakly: a store released anywhere goes away, the
    /// monitor thread included.
    func start() {
        guard let realPath else { return }
        lastUseTick.store(ConnectionBudget.shared.tick(), ordering: .relaxed)
        ConnectionBudget.shared.opened(self)
        guard configuration.watchesExternalChanges else { return }
        let mode: WatchMode
        switch configuration.externalChangeDetection.kind {
        case .off: return
        case .fileEvents: mode = .fileEvents
        case .polling(let interval): mode = .polling(interval: interval)
        }
        let registration = FileMonitor.shared.register(
            realPath: realPath, mode: mode, safetyPoll: configuration.safetyPoll, logger: configuration.logger
        ) { [weak self] event in
            self?.handleMonitorEvent(event) ?? .sawCommit
        }
        self.registration.withLock { $0 = registration }
    }

    // MARK: State

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Whether the cache may answer a read without the connection: the cache is kept current,
    /// this thread is not inside a transaction (whose writes the cache does not hold yet), and
    /// the store is neither closed nor lost its file (a read then throws why).
    var servesFromCache: Bool {
        cacheIsCurrent && !access.isHeldByCurrentThread
            && !closed.load(ordering: .relaxed) && !isLost.load(ordering: .acquiring)
    }

    var closedError: DefaultsError {
        DefaultsError(.closed, "the store \(path ?? "in memory") was closed; open a new one to use the database", path: path)
    }

    /// Runs `body` holding the connection, open (a suspended one is reopened) and usable.
    func withConnection<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
        try access.withState { connection in
            try checkUsable()
            try resumeIfSuspended(connection)
            return try body(connection)
        }
    }

    /// Reopens a connection the budget suspended. Call with the database lock held.
    func resumeIfSuspended(_ connection: StoreConnection) throws {
        if realPath != nil { lastUseTick.store(ConnectionBudget.shared.tick(), ordering: .relaxed) }
        guard connection.isSuspended, let realPath else { return }
        let failures = failures
        try connection.resume(with: StoreOpener.openDatabase(realPath: realPath, configuration: configuration) {
            failures.report($0, operation: "reopening the database", warns: true)
        })
        ConnectionBudget.shared.opened(self)
    }

    /// When the connection was last used (``ConnectionBudget``'s clock).
    var lastUse: UInt64 { lastUseTick.load(ordering: .relaxed) }

    /// Closes the connection to save descriptors, unless it is in use; called by the budget.
    func suspendIfIdle() {
        let suspended = try? access.withStateIfAvailable { connection -> Bool in
            guard !isClosed, realPath != nil else { return false }
            return connection.suspend()
        }
        if suspended == true { ConnectionBudget.shared.closed(self) }
    }

    /// Throws when the store can no longer be used. Call with the database lock held.
    func checkUsable() throws {
        if closed.load(ordering: .relaxed) { throw closedError }
        if let error = lost.withLock({ $0 }) { throw error }
    }

    static func validate(_ key: String) throws {
        if key.isEmpty {
            throw DefaultsError(.invalidKey, "a key name must not be empty", key: key)
        }
    }

    /// Closes the connection, stops watching, ends every observer and sequence. Idempotent.
    /// - Throws: `.misuse` when called inside one of this store's own transactions.
    func close() throws {
        if access.isHeldByCurrentThread {
            throw DefaultsError(.misuse, "close() was called inside a transaction of the same store; close it after the transaction returns", path: path)
        }
        let wasOpen = try access.withState { connection -> Bool in
            guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return false }
            connection.close()
            return true
        }
        guard wasOpen else { return }
        storeThread.close(with: DefaultsError(
            .closed, "the store \(path ?? "in memory") was closed while this call waited for its turn; nothing was done", path: path))
        ConnectionBudget.shared.closed(self)
        let registration = registration.withLock { registration in
            defer { registration = nil }
            return registration
        }
        registration?.cancel()
        registry.closeAll()
        commitSignal.finishAll()
        cache.removeAll()
    }

    // MARK: Writing: the one write path

    /// The row a value is stored as (`nil`: no row), or why it cannot be stored.
    func encode<Value>(_ value: Value, for key: DefaultsKey<Value>) throws -> SQLiteValue? {
        try Self.validate(key.name)
        let stored: SQLiteValue
        do {
            stored = try key.codec.encode(value)
        } catch let error as DefaultsError {
            throw error.naming(key: key.name)
        } catch {
            throw DefaultsError(.encodingFailed, "\(Value.self) cannot be encoded: \(error)", key: key.name)
        }
        switch stored {
        case .null:
            return nil
        case .real(let number) where number.isNaN:
            // SQLite stores NaN as NULL: the value would be acknowledged and then lost.
            throw DefaultsError(.encodingFailed, "NaN cannot be stored (SQLite keeps NaN as NULL, so it would be lost) for key '\(key.name)'", key: key.name)
        case .text(let text) where text.utf8.count > configuration.maximumValueLength:
            throw tooLarge(text.utf8.count, key: key.name)
        case .invalidUTF8Text(let bytes) where bytes.count > configuration.maximumValueLength:
            throw tooLarge(bytes.count, key: key.name)
        case .blob(let bytes) where bytes.count > configuration.maximumValueLength:
            throw tooLarge(bytes.count, key: key.name)
        default:
            return stored
        }
    }

    private func tooLarge(_ length: Int, key: String) -> DefaultsError {
        DefaultsError(.valueTooLarge, "the value for key '\(key)' is \(length) bytes; the limit is \(configuration.maximumValueLength)", key: key)
    }

    func set<Value>(_ value: Value, for key: DefaultsKey<Value>) throws {
        let row = try encode(value, for: key)
        try write(key.hashedName, row)
    }

    func remove(_ key: String) throws {
        try Self.validate(key)
        try write(HashedKey(key), nil)
    }

    /// Deletes every row in one transaction; observers hear each key removed.
    func removeAll() throws { try transaction { try $0.removeAll() } }

    /// Writes (or, for `nil`, deletes) one row, in the open transaction or as its own commit,
    /// then delivers the change.
    func write(_ key: HashedKey, _ row: SQLiteValue?) throws {
        try withConnection { connection in
            try takingWriteLock(connection) { try writeRow(key, row, on: connection) }
            if connection.transactionDepth == 0 { publishCommitted(connection) }
        }
        deliverIfOutermost()
    }

    /// Every write of every API ends here (a replicator's too, through `ReplicaTransaction`).
    func writeRow(_ key: HashedKey, _ row: SQLiteValue?, on connection: StoreConnection) throws {
        do {
            try connection.write(key, row)
        } catch let error as DefaultsError {
            throw error.naming(key: key.name)
        }
    }

    /// Runs `body` in one transaction (a savepoint when nested); rolls back and rethrows
    /// whatever it throws, unchanged. Its changes are announced with `origin` (`.external` for a
    /// replicator applying another machine's changes).
    ///
    /// With `attribution`, its writes are recorded as made for that actor and reason — unless an
    /// enclosing transaction already named one, which then holds for the whole transaction.
    func transaction<Result>(origin: DefaultsChangeOrigin = .local, attribution: WriteAttribution? = nil,
                             _ body: (StoreConnection) throws -> Result) throws -> Result {
        guard let attribution else { return try transaction(origin: origin, body) }
        let result = try withConnection { connection in
            guard connection.attribution == nil else { return try transaction(origin: origin, body) }
            connection.attribution = attribution
            defer { connection.attribution = nil }
            return try WriterIdentity.attribute(connection.database, actor: attribution.actor, reason: attribution.reason) {
                try transaction(origin: origin, body)
            }
        }
        deliverIfOutermost()  // the transaction inside ran with the lock held, so delivered nothing
        return result
    }

    private func transaction<Result>(origin: DefaultsChangeOrigin, _ body: (StoreConnection) throws -> Result) throws -> Result {
        let result = try withConnection { connection in
            try takingWriteLock(connection) { try connection.begin() }
            let mark = connection.recorder.mark()
            let result: Result
            do {
                result = try body(connection)
            } catch {
                connection.rollback(to: mark)
                throw error
            }
            if try connection.commit() { publishCommitted(connection, origin: origin) }
            return result
        }
        deliverIfOutermost()
        return result
    }

    /// Runs `body` in one transaction of this store, for the public face (``DefaultsStore/transaction(_:)``):
    /// it writes through the store's own methods, which join the transaction.
    func transaction<Result>(attribution: WriteAttribution? = nil, _ body: () throws -> Result) throws -> Result {
        try transaction(origin: .local, attribution: attribution) { _ in try body() }
    }

    /// Atomic read-modify-write: the row is read inside `BEGIN IMMEDIATE`, so no other
    /// connection can write between the read and the write.
    func modify<Value, Result>(_ key: DefaultsKey<Value>, _ body: (inout Value) throws -> Result) throws -> Result {
        try Self.validate(key.name)
        return try transaction { connection in
            var value: Value
            if let stored = try connection.read(key.name) {
                value = try decode(stored, for: key)
            } else {
                value = key.defaultValue
            }
            let result = try body(&value)
            try writeRow(key.hashedName, try encode(value, for: key), on: connection)
            return result
        }
    }

    /// After a commit (database lock held): the cache takes the committed values, and
    /// observed changes join the delivery queue in commit order. A key written several times
    /// is announced once, with its final value; a key left as it was, not at all.
    private func publishCommitted(_ connection: StoreConnection, origin: DefaultsChangeOrigin = .local) {
        connection.recorder.consumeCommitted { changes in
            if !changes.writes.isEmpty { metrics.commits.increment() }
            // Another connection committed after this store's last look and before this commit
            // (its entries come first in the log): applied below, after the cache took this
            // commit's values and before they are queued, so observers hear both in commit order.
            var missedEarlierCommits = false
            if let sequences = changes.logSequences {
                if let log = connection.changeLog {
                    missedEarlierCommits = log.hasUnappliedEntries(before: sequences.lowerBound)
                    log.noteOwnCommit(sequences, lastKey: changes.lastLoggedKey)
                }
                connection.notePrunableCommit(sequences)
            }
            if changes.logSequences != nil || !changes.writes.isEmpty { commitSignal.signal() }
            // Where the history stands just before this commit's entries.
            let resumeAfter = changes.logSequences.map { $0.lowerBound - 1 }
            if changes.writes.count == 1 {
                // The autocommit `set`: no batch to build.
                let write = changes.writes[0]
                let previous = cache.update(write.hashedKey, stored: write.value)
                if write.value == nil { pruneTombstones() }
                if missedEarlierCommits { applyPendingCommits(connection) }
                if case .some(let old) = previous, SQLiteValue.isSameRow(old, write.value) { return }
                if registry.isObserved(write.hashedKey) {
                    delivery.enqueue(.init(key: write.key, value: write.value, origin: origin, writer: writer(of: write.key, on: connection),
                                           resumeAfter: resumeAfter))
                }
            } else if !changes.writes.isEmpty {
                let changed = cache.apply(changes.finalValues())
                pruneTombstones()
                if missedEarlierCommits { applyPendingCommits(connection) }
                for write in registry.observed(among: changed) {
                    delivery.enqueue(.init(key: write.key, value: write.value, origin: origin, writer: writer(of: write.key, on: connection),
                                           resumeAfter: resumeAfter))
                }
            }
        }
        connection.replicaWriters.removeAll()
    }

    /// Who wrote `key` in the transaction just committed: a replicator's writer when it named
    /// one, this process otherwise.
    private func writer(of key: String, on connection: StoreConnection) -> DefaultsWriter {
        if connection.replicaWriters.isEmpty { return ownWriter(connection) }
        return connection.replicaWriters[HashedKey(key)] ?? ownWriter(connection)
    }

    /// This process, with the open transaction's actor and reason.
    private func ownWriter(_ connection: StoreConnection) -> DefaultsWriter {
        guard let attribution = connection.attribution else { return .current }
        return DefaultsWriter.current.attributed(actor: attribution.actor, reason: attribution.reason)
    }

    func pruneTombstones() {
        guard cache.tombstoneCount > ValueCache.tombstoneLimit else { return }
        let observed = Set(registry.observedKeys)
        cache.pruneTombstones { observed.contains($0) }
    }

    /// Delivers queued changes unless this thread is still inside the database lock (a
    /// nested call in a transaction): the outermost call delivers them.
    func deliverIfOutermost() {
        if !access.isHeldByCurrentThread { delivery.deliver() }
    }
}
