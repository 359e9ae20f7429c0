import Synchronization

// Observation is one family, closure and sequence forms side by side:
//   one key:         observe(_:_:)  ~ changes(_:)   -> DefaultsChange<Value> (typed)
//   every key:       observe(_:)    ~ changes()     -> AnyDefaultsChange (as stored)
//   one key's value:                  updates(_:initial:) -> Value, the current one first
extension DefaultsStore {
    /// Calls `handler` after every committed change of `key`, whoever made it: this store
    /// (`.local`), another store on the same file, another process, or a SQL client such as
    /// the `sqlite3` shell (`.external`). The closure form of ``changes(_:)``.
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
    /// - Parameters:
    ///   - key: the key to hear.
    ///   - handler: called with each change.
    /// - Returns: a token; observation lasts until it is cancelled or deallocated.
    public func observe<Value>(_ key: DefaultsKey<Value>, _ handler: @escaping @Sendable (DefaultsChange<Value>) -> Void) -> DefaultsObservation {
        let codec = key.codec
        let defaultValue = key.defaultValue
        let observer = core.addObserver(key: key.name) { name, stored, origin, writer, _ in
            let value = stored.flatMap { try? codec.decode($0) } ?? defaultValue
            handler(DefaultsChange(key: name, newValue: value, origin: origin, writer: writer))
        }
        return DefaultsObservation { [weak core] in core?.removeObserver(observer) }
    }

    /// Calls `handler` after every committed change of any key, in commit order, with the
    /// key, who made it, and the row's new value as stored (`nil` when removed). The closure
    /// form of ``changes()``; it hears what ``observe(_:_:)`` hears, for every key.
    ///
    /// ```swift
    /// let token = store.observe { change in
    ///     print(change.key, "changed by", change.origin)
    /// }
    /// ```
    ///
    /// - Parameter handler: called with each change, after its commit, with no lock held.
    /// - Returns: a token; observation lasts until it is cancelled or deallocated.
    public func observe(_ handler: @escaping @Sendable (AnyDefaultsChange) -> Void) -> DefaultsObservation {
        let observer = core.addObserver(key: nil) { name, stored, origin, writer, _ in
            handler(AnyDefaultsChange(key: name, newValue: stored, origin: origin, writer: writer))
        }
        return DefaultsObservation { [weak core] in core?.removeObserver(observer) }
    }

    /// Calls `handler` after each committed change of a key whose name starts with `prefix`
    /// (compared by bytes, as SQLite compares keys: `"feature."` selects `feature.beta`, not
    /// `featureless`): ``observe(_:)`` for a group of keys, such as a team's or a service's.
    ///
    /// ```swift
    /// let token = store.observe(prefix: "feature.") { change in
    ///     flags.reload(change.key)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - prefix: the names' first bytes; the empty prefix selects every key.
    ///   - handler: called with each change, after its commit, with no lock held.
    /// - Returns: a token; observation lasts until it is cancelled or deallocated.
    public func observe(prefix: String, _ handler: @escaping @Sendable (AnyDefaultsChange) -> Void) -> DefaultsObservation {
        let bytes = Array(prefix.utf8)
        let observer = core.addObserver(key: nil) { name, stored, origin, writer, _ in
            guard name.utf8.starts(with: bytes) else { return }
            handler(AnyDefaultsChange(key: name, newValue: stored, origin: origin, writer: writer))
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
    /// Bounded: the sequence holds at most ``updatesBufferLimit`` (1,024) values its consumer
    /// has not read yet; past that the oldest unread ones are dropped and the newest is always
    /// kept, so a consumer that stops reading costs at most that many values and, when it reads
    /// again, gets the key's newest value (a value stream promises no more: for every change,
    /// use ``changes(since:keys:prefix:)``). Ending the loop or cancelling its
    /// task unregisters the observer; the sequence finishes when the store is closed or
    /// deallocated. For who made each change, use ``changes(_:)``.
    ///
    /// - Parameters:
    ///   - key: the key to follow.
    ///   - initial: whether to yield the current value first (default `true`).
    /// - Returns: a sequence of the key's values.
    public func updates<Value>(_ key: DefaultsKey<Value>, initial: Bool = true) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(Self.updatesBufferLimit))
        let codec = key.codec
        let defaultValue = key.defaultValue
        // What was last yielded, as stored: `.some(nil)` = the row was absent.
        let last = Mutex<SQLiteValue??>(nil)
        let token: DefaultsObservation = last.withLock { lastYielded in
            let observer = core.addObserver(key: key.name, onStoreClosed: { continuation.finish() }) { _, stored, _, _, _ in
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

    /// How many unread values ``updates(_:initial:)`` holds at most before it drops the oldest.
    public static let updatesBufferLimit = 1_024

    /// How many unread changes ``changes()``, ``changes(prefix:)`` and ``changes(_:)`` each hold
    /// at most: past that the oldest unread ones are dropped, and the first change the consumer
    /// reads after them says so (``AnyDefaultsChange/missedBefore``, ``DefaultsMissedChanges``).
    /// A consumer that stops reading costs at most this many changes (each with its value, up
    /// to the store's `maximumValueLength`).
    public static let changesBufferLimit = 4_096

    /// Every committed change of `key`, typed, in commit order: the sequence form of
    /// ``observe(_:_:)``, delivering the same changes (who made each one included).
    ///
    /// ```swift
    /// for await change in store.changes(.theme) where change.origin == .external {
    ///     print("someone else set the theme to", change.newValue)
    /// }
    /// ```
    ///
    /// Unlike ``updates(_:initial:)`` it starts with the next change, not the current value.
    /// Bounded: it holds at most ``changesBufferLimit`` changes its consumer has not read; a
    /// consumer that falls further behind loses the oldest of them, and the first change it
    /// reads afterwards says how many and where the history has them
    /// (``DefaultsChange/missedBefore``). Ending the loop or cancelling its task unregisters
    /// it; the sequence finishes when the store is closed or deallocated.
    ///
    /// - Parameter key: the key to hear.
    /// - Returns: a sequence of the key's changes.
    public func changes<Value>(_ key: DefaultsKey<Value>) -> AsyncStream<DefaultsChange<Value>> {
        let buffer = ChangeBuffer<DefaultsChange<Value>>(limit: Self.changesBufferLimit) { $0.missing($1) }
        let codec = key.codec
        let defaultValue = key.defaultValue
        let observer = core.addObserver(key: key.name, onStoreClosed: { buffer.finish() }) { name, stored, origin, writer, resumeAfter in
            let value = stored.flatMap { try? codec.decode($0) } ?? defaultValue
            buffer.push(DefaultsChange(key: name, newValue: value, origin: origin, writer: writer), resumeAfter: resumeAfter)
        }
        return Self.stream(of: buffer, observing: DefaultsObservation { [weak core] in core?.removeObserver(observer) })
    }

    /// Every committed change of every key, in commit order, with the key, who made it and
    /// the new stored value: the sequence form of ``observe(_:)``. Bounded as ``changes(_:)``
    /// is (``changesBufferLimit``; ``AnyDefaultsChange/missedBefore``). Ending the loop or
    /// cancelling its task unregisters it; the sequence finishes when the store is closed or
    /// deallocated.
    ///
    /// ```swift
    /// for await change in store.changes() {
    ///     print(change.key, change.origin)
    /// }
    /// ```
    ///
    /// - Returns: a sequence of every key's changes.
    public func changes() -> AsyncStream<AnyDefaultsChange> {
        changes(prefix: "")
    }

    /// The changes of the keys whose name starts with `prefix` (by bytes, as
    /// ``observe(prefix:_:)``), as ``changes()`` gives every key's, bounded the same way.
    ///
    /// ```swift
    /// for await change in store.changes(prefix: "billing.") { reconfigure(change.key) }
    /// ```
    ///
    /// - Parameter prefix: the names' first bytes; the empty prefix selects every key.
    /// - Returns: a sequence of those keys' changes.
    public func changes(prefix: String) -> AsyncStream<AnyDefaultsChange> {
        let buffer = ChangeBuffer<AnyDefaultsChange>(limit: Self.changesBufferLimit) { $0.missing($1) }
        let bytes = Array(prefix.utf8)
        let observer = core.addObserver(key: nil, onStoreClosed: { buffer.finish() }) { name, stored, origin, writer, resumeAfter in
            guard bytes.isEmpty || name.utf8.starts(with: bytes) else { return }
            buffer.push(AnyDefaultsChange(key: name, newValue: stored, origin: origin, writer: writer), resumeAfter: resumeAfter)
        }
        return Self.stream(of: buffer, observing: DefaultsObservation { [weak core] in core?.removeObserver(observer) })
    }

    /// A sequence reading `buffer`, keeping `token` (and so its observer) as long as the
    /// sequence or an iterator of it lives: dropping both, or cancelling the consumer's task,
    /// unregisters the observer.
    private static func stream<Element>(of buffer: ChangeBuffer<Element>, observing token: DefaultsObservation) -> AsyncStream<Element> {
        AsyncStream(unfolding: {
            withExtendedLifetime(token) {}
            return await buffer.next()
        }, onCancel: {
            token.cancel()
        })
    }
}
