import Foundation
import Logging

/// Other connections' commits: found through the change log when the monitor wakes the
/// store, applied to the cache, and queued for the observers as `.external` changes.
extension StoreEngine {
    /// Called on the monitor thread.
    func handleMonitorEvent(_ event: MonitorEvent) -> MonitorOutcome {
        switch event {
        case .databaseFileEvent, .safetyPoll: checkFileIdentity()
        case .filesChanged: break
        }
        return checkExternalChanges()
    }

    /// Finds what other connections committed and delivers it.
    /// - Returns: whether another connection's commit was seen, only this store's own, or
    ///   nothing; or that the store was too busy to look.
    @discardableResult
    func checkExternalChanges() -> MonitorOutcome {
        var outcome = MonitorOutcome.nothingNew
        let started = ContinuousClock.now
        do {
            // The store is busy (usually writing, which itself wakes the monitor): look again in
            // a moment instead of making the writer wait for the monitor.
            let ran: Void? = try access.withStateIfAvailable { connection in
                guard !isClosed, lost.withLock({ $0 }) == nil, connection.transactionDepth == 0,
                      connection.changeLog != nil
                else { return }
                // Suspended (to save descriptors): the files tell without opening them whether
                // anyone can have committed.
                if connection.isSuspended, let realPath, connection.suspendedStamp == FileStamp(path: realPath) { return }
                try resumeIfSuspended(connection)
                outcome = try look(connection)
            }
            if ran == nil {
                delivery.deliver()
                return .busy
            }
            let took = (ContinuousClock.now - started).components
            metrics.look.recordNanoseconds(took.seconds * 1_000_000_000 + took.attoseconds / 1_000_000_000)
            lastCheckFailure.withLock { $0 = nil }
        } catch {
            // What was applied before the failure is delivered below and recorded in the log's
            // position; the rest waits for the next check.
            let text = "\(error)"
            let isNew = lastCheckFailure.withLock { last in
                defer { last = text }
                return last != text
            }
            if isNew {
                configuration.logger.info("SQLiteDefaults: checking for changes by other connections failed; will retry",
                                          metadata: ["path": "\(path ?? "")", "error": "\(text)"])
            }
        }
        delivery.deliver()
        return outcome
    }

    /// One look at the change log, with the connection held and no transaction open: applies
    /// and queues what other connections committed since the last look.
    private func look(_ connection: StoreConnection) throws -> MonitorOutcome {
        guard let log = connection.changeLog else { return .nothingNew }
        // A prune put off because another writer held the lock: that writer may have
        // been the last for a while, so it is not left for the next commit.
        if connection.prunePending { connection.pruneIfOverdue() }
        // `data_version` alone first: most looks (after this store's own commits) end
        // here, with one statement.
        let version: Int64
        switch try log.checkDataVersion(connection.database) {
        case .changed(let changed): version = changed
        case .unchanged(let passedOwnCommits):
            return passedOwnCommits ? .ownCommits : .nothingNew
        }
        // The log and the values from one snapshot. The scan may see commits newer
        // than `version`; the next look then reads the log again and finds nothing new.
        // Keys nobody reads or observes here need nothing but the log's position moved past them.
        let wants: (String) -> Bool
        if cache.isComplete || registry.observesEveryKey {
            wants = { _ in true }
        } else if cache.isEmpty && !registry.hasObservers {
            // Nothing to compare or announce: the position moves to the log's end with one
            // statement, whatever the log holds (a gap or a rewound file would only lead to
            // comparing every known key, and none is known).
            try log.reset(connection.database, dataVersion: version)
            connection.pruneIfOverdue()
            commitSignal.signal()
            return .sawCommit
        } else {
            wants = { [cache, registry] key in
                let hashed = HashedKey(key)
                return cache.contains(hashed) || registry.isObserved(hashed)
            }
        }
        try connection.withReadTransaction {
            switch try log.scan(connection.database, dataVersion: version, wants: wants) {
            case .entries(let entries, let end, let version, let ownKeys):
                try apply(entries, ownKeys: ownKeys, log: log, connection: connection)
                log.finish(end: end, dataVersion: version)
            case .resync(let reason, let version):
                configuration.logger.info("SQLiteDefaults: comparing every key with the database",
                                          metadata: ["path": "\(path ?? "")", "reason": "\(reason)"])
                try resync(connection)
                try log.reset(connection.database, dataVersion: version)
            }
        }
        // After the read transaction, before delivery: other writers' entries count
        // towards the length kept as this store's own do.
        connection.pruneIfOverdue()
        commitSignal.signal()
        return .sawCommit
    }

    /// Applies and queues the other connections' commits this store has not applied yet, with
    /// the connection held and no transaction open. Two callers need them before the monitor's
    /// next look:
    ///
    /// - this store's own commit, when the log shows another connection committed in between:
    ///   those changes are queued first, so observers hear every change in commit order. The
    ///   cache already holds this commit's values, so a key both wrote is announced once, with
    ///   this commit's.
    /// - the first observer of every key, before it fills the cache: the rows it reads must not
    ///   overtake the changes the observers already registered have not heard yet.
    func applyPendingCommits(_ connection: StoreConnection) {
        do {
            _ = try look(connection)
        } catch {
            // The monitor's next look applies them (after this commit's changes, then).
            configuration.logger.debug("SQLiteDefaults: reading other connections' earlier commits failed",
                                       metadata: ["path": "\(path ?? "")", "error": "\(error)"])
        }
    }

    /// Applies log entries in order, recording progress after each. A key's new value comes from
    /// its newest entry when the log keeps it (one statement read them all); the row is read
    /// only for the rest (a value over the history's size limit, a secret, an older file, a
    /// key this store also wrote in between).
    private func apply(_ entries: [ChangeLog.Entry], ownKeys: Set<String>, log: ChangeLog, connection: StoreConnection) throws {
        // Keys nobody reads or observes need nothing but the log's position moved past them.
        guard !cache.isEmpty || registry.hasObservers else {
            if let last = entries.last { log.advance(past: last) }
            return
        }
        var applied = Set<HashedKey>()
        // A key repeated later in the scan is applied once, with its newest value: its writer is
        // the one of its newest entry.
        var newest: [HashedKey: (writer: DefaultsWriter?, logged: ChangeLog.Logged)] = [:]
        if entries.count > 1 {
            for entry in entries { newest[HashedKey(entry.key)] = (entry.writer, entry.logged) }
        }
        for entry in entries {
            let key = HashedKey(entry.key)
            if applied.insert(key).inserted, cache.contains(key) || registry.isObserved(key) {
                let latest = newest[key] ?? (entry.writer, entry.logged)
                var value: SQLiteValue??
                if !ownKeys.contains(entry.key) {
                    switch latest.logged {
                    case .removed: value = .some(nil)
                    case .value(let logged) where fitsReadLimit(logged): value = .some(logged)
                    default: value = nil
                    }
                }
                try refresh(key, connection: connection, writer: latest.writer, known: value, resumeAfter: entry.sequence - 1)
            }
            log.advance(past: entry)
        }
    }

    /// Whether a logged value is one a read of this store would return (not over its
    /// `maximumValueLength`, which a read refuses).
    private func fitsReadLimit(_ value: SQLiteValue) -> Bool {
        switch value {
        case .text(let text): text.utf8.count <= configuration.maximumValueLength
        case .blob(let data), .invalidUTF8Text(let data): data.count <= configuration.maximumValueLength
        default: true
        }
    }

    /// Compares every key anyone knows of — cached, observed, and, for a complete cache or an
    /// observer of every key, every row — with the database, announcing each that differs.
    private func resync(_ connection: StoreConnection) throws {
        var keys = Set((cache.knownKeys + registry.observedKeys).map(HashedKey.init))
        if cache.isComplete || registry.observesEveryKey {
            keys.formUnion(try connection.keys().map(HashedKey.init))
        }
        for key in keys.sorted(by: { $0.name < $1.name }) {
            try refresh(key, connection: connection, writer: nil)
        }
    }

    /// Reads one row again; when it differs from what the cache (and so every observer) last
    /// saw, updates the cache and queues the change. A row this store cannot read (larger than
    /// its `maximumValueLength`) is dropped from the cache, so reads report why, and does not
    /// hold up the keys after it.
    private func refresh(_ hashed: HashedKey, connection: StoreConnection, writer: DefaultsWriter?,
                         known: SQLiteValue?? = nil, resumeAfter: Int64? = nil) throws {
        let key = hashed.name
        let value: SQLiteValue?
        do {
            if let known { value = known } else { value = try connection.read(key) }
        } catch let error as DefaultsError where error.code == .valueTooLarge {
            cache.markUnreadable(hashed)
            configuration.logger.debug("SQLiteDefaults: a row changed by another connection is too large to read",
                                       metadata: ["key": "\(key)", "limit": "\(configuration.maximumValueLength)"])
            return
        }
        let previous = cache.update(hashed, stored: value)
        if case .some(let old) = previous, SQLiteValue.isSameRow(old, value) { return }
        metrics.externalChanges.increment()
        if registry.isObserved(hashed) {
            delivery.enqueue(.init(key: key, value: value, origin: .external, writer: writer, resumeAfter: resumeAfter))
        }
    }

    /// Called when the database file itself was touched: notices a deletion or replacement.
    ///
    /// A store cannot follow a file put in place of the one it opened: SQLite never
    /// checkpoints a database that was moved or unlinked, so the old file's `-wal` stays
    /// beside the new one, and replaying it into the new file would mix two databases (the
    /// open would be refused anyway, see ``WalOwnership``). So every later call fails with
    /// `.databaseReplaced`, the failure is logged and reported, and both files are left as
    /// they are; open a new store once the stale `-wal` is moved away.
    func checkFileIdentity() {
        guard let realPath, lost.withLock({ $0 }) == nil, !isClosed else { return }
        let current = FileIdentity(path: realPath)
        guard current != fileIdentity else { return }
        let error = DefaultsError(
            .databaseReplaced,
            current == nil
                ? "the database file \(realPath) was deleted while the store had it open; writes would be lost, so they are refused"
                : "the database file \(realPath) was replaced by another file while the store had it open; the old file's -wal is still beside it, so both were left untouched: move the -wal away and open a new store",
            path: path)
        lost.withLock { $0 = error }
        isLost.store(true, ordering: .releasing)
        failures.report(error, operation: "watching the database file", warns: true)
        // Change feeds waiting for a commit read again, and end with this error.
        commitSignal.signal()
    }
}
