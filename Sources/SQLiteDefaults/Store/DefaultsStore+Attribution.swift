/// Writes that say who they were made for and why, and writes that happen only when the key
/// is still at the version the writer last saw.
extension DefaultsStore {
    /// Runs `body` as one transaction, as ``transaction(_:)-8rx6d`` does, with every change it makes
    /// recorded as made for `actor` because of `reason`: in the history
    /// (``DefaultsHistoryEntry/writer``'s ``DefaultsWriter/actor`` and ``DefaultsWriter/reason``)
    /// and in the changes observers receive.
    ///
    /// ```swift
    /// try store.transaction(actor: "alice", reason: "INC-4711: upstream is slow") { tx in
    ///     tx[.timeout] = 45
    ///     tx[.retries] = 5
    /// }
    /// ```
    ///
    /// Every write through the store inside `body`, on the same thread, joins the transaction
    /// and is attributed alike. Inside a transaction that already names an actor or reason, the
    /// outer one's hold for the whole transaction. Empty strings count as not given.
    ///
    /// - Parameters:
    ///   - actor: the person or service the changes are made for (a user name, a token's name);
    ///     at most 256 UTF-8 bytes.
    ///   - reason: why, as free text (newlines allowed); at most 16,384 UTF-8 bytes.
    ///   - body: the transaction's reads and writes.
    /// - Returns: what `body` returns.
    /// - Throws: ``DefaultsError`` `.invalidAttribution` (nothing runs) when `actor` or `reason`
    ///   is too long; otherwise as ``transaction(_:)-8rx6d``.
    @discardableResult
    public func transaction<Result>(actor: String?, reason: String? = nil,
                                    _ body: (DefaultsTransaction) throws -> Result) throws -> Result {
        let attribution = try WriteAttribution.make(actor: actor, reason: reason)
        return try core.transaction(attribution: attribution) {
            let transaction = DefaultsTransaction(core: core)
            defer { transaction.end() }
            let result = try body(transaction)
            if let failure = transaction.firstFailure { throw failure }
            return result
        }
    }

    /// Writes `value` as ``set(_:for:)-qkes`` does, recorded as made for `actor` because of `reason`.
    ///
    /// ```swift
    /// try store.set(45, for: .timeout, actor: "alice", reason: "INC-4711")
    /// ```
    ///
    /// - Throws: as ``set(_:for:)-qkes``, and `.invalidAttribution` as
    ///   ``transaction(actor:reason:_:)-4nyk6``; nothing is written when it throws.
    public func set<Value>(_ value: Value, for key: DefaultsKey<Value>, actor: String?, reason: String? = nil) throws {
        try transaction(actor: actor, reason: reason) { try $0.set(value, for: key) }
    }

    /// Removes the key's row as ``remove(_:)-2tewr`` does, recorded as made for `actor` because of
    /// `reason`.
    /// - Throws: as ``set(_:for:actor:reason:)-54yrx``.
    public func remove<Value>(_ key: DefaultsKey<Value>, actor: String?, reason: String? = nil) throws {
        try transaction(actor: actor, reason: reason) { try $0.remove(key) }
    }

    // MARK: Going back

    /// The value history entry `sequence` wrote, for writing it back: `nil` when the change
    /// removed its key. A secret's value, which no output shows, is opened from the history's
    /// sealed copy (``DefaultsHistoryValue/secret(digest:)``) — the file's owner reads it, as
    /// a read of the key does.
    ///
    /// ```swift
    /// let previous = try store.history(keys: ["api.token"], limit: 2).last!
    /// try store.transaction(actor: "alice", reason: "the new token is refused") { tx in
    ///     try tx.set(try store.value(writtenBy: previous.sequence), for: DefaultsKey<SQLiteValue?>("api.token"))
    /// }
    /// ```
    ///
    /// - Returns: the value as it was stored, or nil for a removal.
    /// - Throws: ``DefaultsError`` `.notInHistory` when the history keeps no such change or
    ///   not its value (too large to keep, or a secret written by another SQL client).
    public func value(writtenBy sequence: Int64) throws -> SQLiteValue? {
        try core.writtenValue(sequence: sequence).value
    }

    // MARK: Versions

    /// The key's version: the history sequence number of its newest change, so it grows with
    /// every change from any writer (this store, another process, the fleet, a `sqlite3` shell);
    /// 0 when it was never written. The version survives the pruning of the history: when the
    /// key's newest change is no longer kept (10,000 newer changes of other keys), the prune
    /// recorded its sequence, and the version still names it. (A file last pruned by a version
    /// of this library before that record existed reads 0 for keys pruned then.)
    ///
    /// A writer that shows a value and later writes it back checks, in the same transaction,
    /// that the version is still the one it showed (``DefaultsTransaction/requireVersion(_:of:)``),
    /// so two operators never overwrite each other silently:
    ///
    /// ```swift
    /// let seen = try store.version(of: "timeout")
    /// // … later, after a person edited the value they saw …
    /// try store.transaction(actor: "alice") { tx in
    ///     try tx.requireVersion(seen, of: "timeout")   // .versionConflict if someone else wrote it
    ///     try tx.set(45, for: .timeout)
    /// }
    /// ```
    ///
    /// - Throws: ``DefaultsError`` — `.invalidKey`, or the errors of a read (`.closed`, …).
    public func version(of key: String) throws -> Int64 {
        try core.version(of: key)
    }

    /// The typed key's version, as ``version(of:)-(String)`` says.
    /// - Throws: as ``version(of:)-(String)``.
    public func version<Value>(of key: DefaultsKey<Value>) throws -> Int64 {
        try core.version(of: key.name)
    }

    /// The version of every key the history keeps a change of, read in one snapshot (a key
    /// absent here is at version 0).
    /// - Throws: ``DefaultsError`` as a read does.
    public func versions() throws -> [String: Int64] {
        try core.versions()
    }
}

extension DefaultsTransaction {
    /// The key's version inside this transaction (``DefaultsStore/version(of:)-(String)``).
    /// - Throws: as ``DefaultsStore/version(of:)-(String)``.
    public func version(of key: String) throws -> Int64 {
        try checkOpen()
        return try core.version(of: key)
    }

    /// Throws unless the key is at version `expected` now: the check of a conditional write,
    /// made in the transaction that then writes, so that nobody can write between the two.
    ///
    /// Version 0 means "never written": "create it only if nobody did meanwhile". A key whose
    /// history was pruned keeps its version, so 0 never matches a key that exists (but for a
    /// key pruned before this library recorded pruned versions, and a row a SQL client
    /// inserted with the log's triggers missing).
    ///
    /// - Throws: ``DefaultsError`` `.versionConflict`, whose ``DefaultsError/currentVersion``
    ///   is the key's version now; the transaction is then rolled back when the error leaves
    ///   its body, so nothing is written.
    public func requireVersion(_ expected: Int64, of key: String) throws {
        try checkOpen()
        try core.requireVersion(expected, of: key)
    }
}
