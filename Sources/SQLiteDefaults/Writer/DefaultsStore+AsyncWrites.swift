import Foundation

/// The async forms of every write: the caller suspends, the write runs on the store's own
/// thread (see <doc:Architecture>, "The store thread"), so no thread the process shares — the
/// cooperative pool, a NIO event loop — ever waits for SQLite's lock.
///
/// Each keeps its synchronous name and meaning; in async code the compiler picks this form.
/// Common to all of them:
/// - A task cancelled before its write starts throws `CancellationError`, and nothing is
///   written; a write that started completes.
/// - The store closed while the call waits for its turn: ``DefaultsError`` `.closed`, nothing
///   written.
/// - Another process holding the write lock past the busy timeout: `.busy`, whose message says
///   how long the call really waited. While it waits, the store answers other calls.
extension DefaultsStore {
    /// Stores `value`, as ``set(_:for:)`` does, from async code without blocking a shared thread.
    ///
    /// ```swift
    /// try await store.set(.dark, for: .theme)
    /// ```
    ///
    /// - Throws: as ``set(_:for:)``; `CancellationError` when the task was cancelled before the
    ///   write started (nothing written).
    public func set<Value>(_ value: Value, for key: DefaultsKey<Value>) async throws {
        try await onStoreThread { try self.set(value, for: key) }
    }

    /// Removes the key's row, as ``remove(_:)`` does, from async code.
    /// - Throws: as the async `set(_:for:)`.
    public func remove<Value>(_ key: DefaultsKey<Value>) async throws {
        try await onStoreThread { try self.remove(key) }
    }

    /// Removes every row in one transaction, as ``removeAll()`` does, from async code.
    /// - Throws: as the async `set(_:for:)`.
    public func removeAll() async throws {
        try await onStoreThread { try self.removeAll() }
    }

    /// Reads, changes and writes one key atomically, as ``modify(_:_:)`` does, from async code.
    /// `body` runs on the store's thread, inside the transaction.
    ///
    /// ```swift
    /// try await store.modify(.count) { $0 += 1 }
    /// ```
    ///
    /// - Returns: what `body` returns.
    /// - Throws: as ``modify(_:_:)``; `CancellationError` before the write started.
    @discardableResult
    public func modify<Value, Result: Sendable>(_ key: DefaultsKey<Value>,
                                                _ body: @escaping @Sendable (inout Value) throws -> Result) async throws -> Result {
        try await onStoreThread { try self.modify(key, body) }
    }

    /// Runs `body` as one transaction, as ``transaction(_:)`` does, from async code. `body`
    /// runs on the store's thread once the write lock is taken: it is never run twice, and
    /// what it throws rolls everything back and reaches the caller unchanged.
    ///
    /// ```swift
    /// try await store.transaction { tx in
    ///     tx[.name] = "Bob"
    ///     tx[.count] = 2
    /// }
    /// ```
    ///
    /// - Returns: what `body` returns.
    /// - Throws: as ``transaction(_:)``; `CancellationError` before the transaction began.
    @discardableResult
    public func transaction<Result: Sendable>(_ body: @escaping @Sendable (DefaultsTransaction) throws -> Result) async throws -> Result {
        try await onStoreThread { try self.transaction(body) }
    }

    /// ``transaction(actor:reason:_:)`` from async code: one transaction, recorded as made for
    /// `actor` because of `reason`.
    /// - Returns: what `body` returns.
    /// - Throws: as ``transaction(actor:reason:_:)``; `CancellationError` before it began.
    @discardableResult
    public func transaction<Result: Sendable>(actor: String?, reason: String? = nil,
                                              _ body: @escaping @Sendable (DefaultsTransaction) throws -> Result) async throws -> Result {
        try await onStoreThread { try self.transaction(actor: actor, reason: reason, body) }
    }

    /// ``set(_:for:actor:reason:)`` from async code.
    /// - Throws: as ``set(_:for:actor:reason:)``; `CancellationError` before the write started.
    public func set<Value>(_ value: Value, for key: DefaultsKey<Value>, actor: String?, reason: String? = nil) async throws {
        try await onStoreThread { try self.set(value, for: key, actor: actor, reason: reason) }
    }

    /// ``remove(_:actor:reason:)`` from async code.
    /// - Throws: as ``remove(_:actor:reason:)``; `CancellationError` before the write started.
    public func remove<Value>(_ key: DefaultsKey<Value>, actor: String?, reason: String? = nil) async throws {
        try await onStoreThread { try self.remove(key, actor: actor, reason: reason) }
    }

    /// ``removeValue(forKeyBytes:)`` from async code.
    /// - Returns: whether a row was removed.
    /// - Throws: as ``removeValue(forKeyBytes:)``; `CancellationError` before the write started.
    public func removeValue(forKeyBytes key: Data) async throws -> Bool {
        try await onStoreThread { try self.removeValue(forKeyBytes: key) }
    }

    /// ``replaceValue(_:forKeyBytes:)`` from async code.
    /// - Returns: whether a row was there to replace.
    /// - Throws: as ``replaceValue(_:forKeyBytes:)``; `CancellationError` before the write started.
    public func replaceValue(_ value: SQLiteValue, forKeyBytes key: Data) async throws -> Bool {
        try await onStoreThread { try self.replaceValue(value, forKeyBytes: key) }
    }

    /// `declare(_:)` with typed keys from async code: declares keys of any value
    /// types in one transaction.
    /// - Throws: as the synchronous form; `CancellationError` before the write started.
    public func declare<each Value: Sendable>(_ keys: repeat DefaultsKey<each Value>) async throws {
        var declarations: [DefaultsDeclaration] = []
        for key in repeat each keys { declarations.append(try key.declaration()) }
        try await onStoreThread { [declarations] in try self.core.declare(declarations) }
    }

    /// `declare(_:)` with a declaration from async code.
    /// - Throws: as the synchronous form; `CancellationError` before the write started.
    public func declare(_ declaration: DefaultsDeclaration) async throws {
        try await onStoreThread { try self.declare(declaration) }
    }

    /// ``undeclare(_:)`` from async code.
    /// - Throws: as ``undeclare(_:)``; `CancellationError` before the write started.
    public func undeclare(_ key: String) async throws {
        try await onStoreThread { try self.undeclare(key) }
    }

    /// ``evolve(_:to:converting:)`` from async code; `convert` runs on the store's thread.
    /// - Throws: as ``evolve(_:to:converting:)``; `CancellationError` before the write started.
    public func evolve<Old, New>(_ old: DefaultsKey<Old>, to new: DefaultsKey<New>,
                                 converting convert: @escaping @Sendable (Old) throws -> New) async throws {
        try await onStoreThread { try self.evolve(old, to: new, converting: convert) }
    }

    /// ``evolve(_:to:)`` from async code.
    /// - Throws: as ``evolve(_:to:)``; `CancellationError` before the write started.
    public func evolve<Value>(_ old: DefaultsKey<Value>, to new: DefaultsKey<Value>) async throws {
        try await onStoreThread { try self.evolve(old, to: new) }
    }

    /// ``setHistoryRetention(_:)`` from async code.
    /// - Throws: as ``setHistoryRetention(_:)``; `CancellationError` before the write started.
    public func setHistoryRetention(_ count: Int) async throws {
        try await onStoreThread { try self.setHistoryRetention(count) }
    }
}
