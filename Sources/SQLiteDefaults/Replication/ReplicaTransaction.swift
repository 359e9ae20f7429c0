/// One write transaction of a replicator in this package (the PostgreSQL fleet sync): rows of
/// `defaults` written through the store's one write path, and the fleet's local tables
/// (Migrations/0011), committed together or not at all.
///
/// Package API, not public, and narrow: named operations, never SQL text, so the library alone
/// writes its file's schema and keeps its invariants (the change log, the cache, the
/// observers). Valid only inside ``DefaultsStore/replicaTransaction(_:)``.
package final class ReplicaTransaction {
    private let engine: StoreEngine
    /// The transaction's connection, opaque here: only the engine's replication methods use it.
    private let session: ReplicaSession
    private let readOnly: Bool
    private var isOpen = true

    init(engine: StoreEngine, session: ReplicaSession, readOnly: Bool = false) {
        self.engine = engine
        self.session = session
        self.readOnly = readOnly
    }

    func end() { isOpen = false }

    private func checkOpen() throws {
        guard isOpen else {
            throw DefaultsError(.misuse, "a ReplicaTransaction was used after its transaction ended")
        }
    }

    /// The key's row as this transaction sees it; `nil` when there is none.
    /// - Throws: ``DefaultsError`` when reading fails.
    package func row(_ key: String) throws -> SQLiteValue? {
        try checkOpen()
        return try engine.replicaRow(key, on: session)
    }

    /// Writes (or, for `nil`, deletes) the key's row through the store's write path: the
    /// change is logged, cached and announced after the commit like any other write. With a
    /// `writer` (the fleet and the machine the row came from), the history and the observers
    /// name it instead of this process.
    /// - Throws: ``DefaultsError`` — `.invalidKey` for an empty name, or the write's failure.
    package func write(_ key: String, _ value: SQLiteValue?, writer: DefaultsWriter? = nil) throws {
        try checkOpen()
        guard !readOnly else {
            throw DefaultsError(.misuse, "a replicator wrote inside a read transaction")
        }
        try engine.replicaWrite(key, value, writer: writer, on: session)
    }

    /// Why the key's declaration refuses `value` (one sentence naming the key and the declared
    /// type), or `nil` when it accepts it or the key is not declared. The database stays the
    /// judge: a replicator phrases a refusal with this, and takes a ``write(_:_:writer:)`` the
    /// database refused as a refused row too (a refused write is one aborted statement; the
    /// transaction goes on).
    /// - Throws: ``DefaultsError`` when reading the declaration fails.
    package func refusal(of value: SQLiteValue, for key: String) throws -> String? {
        try declaration(for: key)?.refusal(of: value)
    }

    /// The key's declaration in this file, or `nil` when it has none: whether a write the
    /// database refused was refused by the key's declaration.
    /// - Throws: ``DefaultsError`` when reading the declaration fails.
    package func declaration(for key: String) throws -> DefaultsDeclaration? {
        try checkOpen()
        return try engine.replicaDeclaration(for: key, on: session)
    }

    // MARK: The fleet's local tables

    /// A row of `defaults_fleet_state`; a field is nil when a SQL client stored another type there.
    package struct FleetState: Sendable {
        package let fleet: String?
        package let position: Int64?
    }

    /// What this file last knew of a key in the fleet's table: its value there (nil: removed)
    /// and that row's version.
    package struct Shadow: Sendable {
        package let value: SQLiteValue?
        /// -1 for an unacknowledged shadow (see ``ReplicaTransaction/markPushing(_:)``).
        package let version: Int64
        /// A push of the key may have reached the fleet's table, unacknowledged here: the key's
        /// row is to be pushed whatever it is.
        package var isUnacknowledged: Bool { version < 0 }
    }

    /// A key's row here beside its shadow: either may be missing (nil).
    package struct RowBesideShadow: Sendable {
        package let key: String
        package let local: SQLiteValue?
        package let shadow: SQLiteValue?
        /// The shadow is unacknowledged (``Shadow/isUnacknowledged``).
        package let unacknowledged: Bool
    }

    /// Every row of `defaults_fleet_state` (one once joined, none before).
    package func fleetStates() throws -> [FleetState] {
        try checkOpen()
        return try engine.onReplicaConnection(session) { try $0.fleetStates() }
    }

    /// Records that this file is in step with `fleet` up to `position` (the only row).
    package func setFleetState(fleet: String, position: Int64) throws {
        try checkWritable()
        try engine.onReplicaConnection(session) { try $0.setFleetState(fleet: fleet, position: position) }
    }

    /// Forgets every shadow and the fleet's state: the file joins a fleet as new.
    package func forgetFleet() throws {
        try checkWritable()
        try engine.onReplicaConnection(session) { try $0.forgetShadows(); try $0.forgetFleetState() }
    }

    /// Forgets every shadow (a file put in place of the one the sync had).
    package func forgetShadows() throws {
        try checkWritable()
        try engine.onReplicaConnection(session) { try $0.forgetShadows() }
    }

    /// The key's shadow, or nil when this file never heard of the key from the fleet.
    package func shadow(of key: String) throws -> Shadow? {
        try checkOpen()
        return try engine.onReplicaConnection(session) { try $0.shadow(of: key) }
    }

    /// Sets the key's shadow to `value` (nil: removed in the fleet's table) at `version`.
    package func setShadow(_ key: String, _ value: SQLiteValue?, version: Int64) throws {
        try checkWritable()
        try engine.onReplicaConnection(session) { try $0.setShadow(key, value, version: version) }
    }

    /// Before a push of `key` is sent: a key with no shadow gets an unacknowledged one (no
    /// value, version -1); one with a shadow keeps it. Without it, a first push that reached
    /// the table but was never recorded here (the sync stopped or the process died in between)
    /// leaves no trace: the key, deleted here afterwards, looks like a key this file never had,
    /// and the fleet's row would come back and undo the deletion. An unacknowledged shadow
    /// keeps the key pending until a push is recorded or a row of it is applied.
    package func markPushing(_ key: String) throws {
        try checkWritable()
        try engine.onReplicaConnection(session) { try $0.markPushing(key) }
    }

    /// Removes the key's shadow.
    package func removeShadow(_ key: String) throws {
        try checkWritable()
        try engine.onReplicaConnection(session) { try $0.removeShadow(key) }
    }

    /// Every acknowledged shadow's version, by key (by its bytes: canonically equivalent keys are
    /// two).
    package func shadowVersions() throws -> [HashedKey: Int64] {
        try checkOpen()
        return try engine.onReplicaConnection(session) { try $0.shadowVersions() }
    }

    /// Every key that has a row here or a present shadow, with both, sorted by key (as SQLite
    /// orders key bytes): where the file and the fleet's table may differ.
    package func rowsBesideShadows() throws -> [RowBesideShadow] {
        try checkOpen()
        return try engine.onReplicaConnection(session) { try $0.rowsBesideShadows() }
    }

    private func checkWritable() throws {
        try checkOpen()
        guard !readOnly else {
            throw DefaultsError(.misuse, "a replicator wrote inside a read transaction")
        }
    }
}
