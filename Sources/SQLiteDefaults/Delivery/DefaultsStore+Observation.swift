import Synchronization

extension DefaultsStore {
    /// Calls `handler` after every committed change of `key`, whoever made it: this store
    /// (`.local`), another store on the same file, another process, or a SQL client such as
    /// the `sqlite3` shell (`.external`).
    ///
    /// ```swift
    /// let token = store.observe(.theme) { change in
    ///     print("theme is now", change.newValue, "changed by", change.origin)
    /// }
    /// ```
    ///
    /// The handler runs after the commit, with no lock held, on the thread that delivers the
    /// change (the writer's thread for this store's writes, the monitor thread for external
    /// ones), one change at a time, in commit order. It may read and write the store. It is
    /// not called for other keys, for rolled-back transactions, or for writes that leave the
    /// value unchanged; several writes in one transaction are one call with the final value.
    /// A removed row, or one that no longer decodes as `Value`, arrives as the key's default.
    ///
    /// - Returns: a token; observation lasts until it is cancelled or deallocated.
    public func observe<Value>(_ key: DefaultsKey<Value>, _ handler: @escaping @Sendable (DefaultsChange<Value>) -> Void) -> DefaultsObservation {
        let codec = key.codec
        let defaultValue = key.defaultValue
        let observer = core.addObserver(key: key.name) { name, stored, origin, writer in
            let value = stored.flatMap { try? codec.decode($0) } ?? defaultValue
            handler(DefaultsChange(key: name, newValue: value, origin: origin, writer: writer))
        }
        return DefaultsObservation { [weak core] in core?.removeObserver(observer) }
    }

    /// Calls `handler` after every committed change of any key, in commit order, with the
    /// key, who made it, and the row's new value (`nil` when removed): the closure form of
    /// ``changes()``, which delivers the same changes as an `AsyncSequence`.
    /// - Returns: a token; observation lasts until it is cancelled or deallocated.
    public func observeAll(_ handler: @escaping @Sendable (DefaultsKeyChange) -> Void) -> DefaultsObservation {
        let observer = core.addObserver(key: nil) { name, stored, origin, writer in
            handler(DefaultsKeyChange(key: name, origin: origin, newValue: stored, writer: writer))
        }
        return DefaultsObservation { [weak core] in core?.removeObserver(observer) }
    }

    /// The key's value now (unless `initial` is false), then its value after every committed
    /// change, from any writer; consecutive equal values are not repeated.
    ///
    /// ```swift
    /// for await name in store.updates(.name) {
    ///     print("name:", name)
    /// }
    /// ```
    ///
    /// Values are buffered, so a slow consumer misses none. Ending the loop or cancelling its
    /// task unregisters the observer; the sequence finishes when the store is deallocated.
    public func updates<Value>(_ key: DefaultsKey<Value>, initial: Bool = true) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let codec = key.codec
        let defaultValue = key.defaultValue
        // What was last yielded, as stored: `.some(nil)` = the row was absent.
        let last = Mutex<SQLiteValue??>(nil)
        let token: DefaultsObservation = last.withLock { lastYielded in
            let observer = core.addObserver(key: key.name, onStoreClosed: { continuation.finish() }) { _, stored, _, _ in
                last.withLock { lastYielded in
                    if case .some(let previous) = lastYielded, SQLiteValue.isSameRow(previous, stored) { return }
                    lastYielded = .some(stored)
                    continuation.yield(stored.flatMap { try? codec.decode($0) } ?? defaultValue)
                }
            }
            if initial {
                let stored = (try? core.storedValue(key.name)) ?? nil
                lastYielded = .some(stored)
                continuation.yield(stored.flatMap { try? codec.decode($0) } ?? defaultValue)
            }
            return DefaultsObservation { [weak core] in core?.removeObserver(observer) }
        }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Every committed change of every key, in commit order, with the key, who made it and
    /// the new stored value; buffered, so a slow consumer loses nothing. Ending the loop or
    /// cancelling its task unregisters it; the sequence finishes when the store is deallocated.
    ///
    /// ```swift
    /// for await change in store.changes() {
    ///     print(change.key, change.origin)
    /// }
    /// ```
    public func changes() -> AsyncStream<DefaultsKeyChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: DefaultsKeyChange.self)
        let observer = core.addObserver(key: nil, onStoreClosed: { continuation.finish() }) { name, stored, origin, writer in
            continuation.yield(DefaultsKeyChange(key: name, origin: origin, newValue: stored, writer: writer))
        }
        let token = DefaultsObservation { [weak core] in core?.removeObserver(observer) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }
}
