#if Fleet
import SQLiteDefaults

/// The machine's side of the fleet: what this SQLite file knows of the fleet's table, kept in
/// the file itself, next to the values, and changed in the same transactions.
///
/// - `defaults_fleet_shadow` holds, per key, the value the fleet's table held when this file
///   last heard of it, and that row's version. A key whose row in `defaults` differs from its
///   shadow was changed here and not yet pushed: the file is the outbox, so nothing
///   acknowledged locally is lost when the sync is killed, and however long it was away,
///   comparing the two tables finds every change to push.
/// - `defaults_fleet_state` holds the fleet table's identity and the version up to which its
///   rows were applied here.
///
/// Both tables are the library's (its migration 0011 creates them in every file); this module
/// reads and writes them through ``ReplicaTransaction``'s named operations, never SQL.
struct LocalReplica: Sendable {
    let store: DefaultsStore

    /// Runs `work` with this replica on the store's own thread: the sync's sessions are async,
    /// and a transaction waiting for another process's lock must not hold a thread the pool
    /// shares. `work` may be run again from the start when its first write finds the file
    /// locked, so it collects what it reports (refusals) itself, fresh on each run.
    func onStoreThread<T: Sendable>(_ work: @escaping @Sendable (LocalReplica) throws -> T) async throws -> T {
        try await store.onStoreThread { [self] in try work(self) }
    }

    /// Where this file stands in a fleet.
    struct Membership: Equatable, Sendable {
        /// The version up to which the fleet's rows were applied.
        let position: Int64
        /// True when the file never finished joining this fleet's table: its first fetch
        /// then wins over local values (see ``apply(_:identity:position:asNewMember:)``).
        let isNew: Bool
        /// True when the file was in step with another table of this name before (dropped and
        /// created again, or on another server): it joins this one as new.
        var replacesAnother = false
    }

    /// Creates the tables when missing and reads the position. A file that last synced with
    /// another table (another identity) forgets that table's shadow and joins as new.
    func join(_ identity: String) throws -> Membership {
        try store.replicaTransaction { transaction in
            let states = try transaction.fleetStates()
            if states.count == 1, states[0].fleet == identity, let position = states[0].position {
                return Membership(position: position, isNew: false)
            }
            try transaction.forgetFleet()
            return Membership(position: 0, isNew: true, replacesAnother: !states.isEmpty)
        }
    }

    /// The rows changed here and not yet pushed: every key whose row differs from its shadow,
    /// among `keys`, or among all keys when `keys` is nil.
    func pending(among keys: Set<HashedKey>?) throws -> [PendingRow] {
        try store.replicaRead { transaction in
            var pending: [PendingRow] = []
            if let keys {
                for key in keys.map(\.name).sorted() {
                    let local = try transaction.row(key)
                    let known = try shadow(of: key, in: transaction)
                    if !SQLiteValue.isSameRow(local, known?.value) || Self.isUnacknowledged(known) {
                        pending.append(PendingRow(key: key, value: local))
                    }
                }
                return pending
            }
            for row in try transaction.rowsBesideShadows() where !SQLiteValue.isSameRow(row.local, row.shadow) || row.unacknowledged {
                pending.append(PendingRow(key: row.key, value: row.local))
            }
            return pending
        }
    }

    private func shadow(of key: String, in transaction: ReplicaTransaction) throws -> (value: SQLiteValue?, version: Int64)? {
        try transaction.shadow(of: key).map { ($0.value, $0.version) }
    }

    private func setShadow(_ key: String, _ value: SQLiteValue?, version: Int64, in transaction: ReplicaTransaction) throws {
        try transaction.setShadow(key, value, version: version)
    }

    /// Whether a push of the key may have reached the table unrecorded (``markPushing(_:)``):
    /// its row is pending whatever it is.
    private static func isUnacknowledged(_ shadow: (value: SQLiteValue?, version: Int64)?) -> Bool {
        (shadow?.version ?? 0) < 0
    }

    /// Marks the keys of `rows` that have no shadow as being pushed, before the push is sent
    /// (``ReplicaTransaction/markPushing(_:)``): a push that reaches the table and is not
    /// recorded here leaves the key pending, not unknown.
    func markPushing(_ rows: [PendingRow]) throws {
        try store.replicaTransaction { transaction in
            for row in rows { try transaction.markPushing(row.key) }
        }
    }

    /// Applies the fleet's rows in one transaction and moves the position to `position`.
    ///
    /// A row older than what this file already knows of its key (this machine's own push
    /// coming back) is skipped. A key changed here and not yet pushed keeps its local value
    /// (its push, later in PostgreSQL's commit order, will win everywhere) and only its shadow
    /// moves. Other keys take the fleet's value; the store's observers hear them as
    /// `.external`. For a new member (`asNewMember`), the fleet's values win over local ones.
    ///
    /// - Returns: how many keys changed in the file.
    @discardableResult
    func apply(_ rows: [FleetRow], identity: String, position: Int64, asNewMember: Bool,
               onRefused: (_ key: String, _ reason: String) -> Void = { _, _ in }) throws -> Int {
        try store.replicaTransaction { transaction in
            var changed = 0
            for row in rows {
                let known = try shadow(of: row.key, in: transaction)
                if let known, known.version >= row.version { continue }
                let local = try transaction.row(row.key)
                let isPending = !asNewMember && (!SQLiteValue.isSameRow(local, known?.value) || Self.isUnacknowledged(known))
                if !isPending, !SQLiteValue.isSameRow(local, row.value) {
                    guard try take(row, local: local, in: transaction, onRefused: onRefused) else { continue }
                    changed += 1
                }
                try setShadow(row.key, row.value, version: row.version, in: transaction)
            }
            try transaction.setFleetState(fleet: identity, position: position)
            return changed
        }
    }

    /// Writes the fleet's row to the file, unless the file refuses it; returns whether it was
    /// written.
    ///
    /// The database is the judge: its declared-key triggers (or any constraint an operator
    /// added) may refuse the write. A refused write is one aborted statement: SQLite undoes it
    /// (the statement's own journal is a savepoint of one row), the store forgets its record of
    /// it, and the transaction goes on with the other rows. The local value then stays
    /// (``keepsLocal(_:local:reason:in:onRefused:)``). Whatever the declaration's own check
    /// says: it phrases the reason, and a row it accepts but the database refuses (a Swift check
    /// that differs from SQL's in some corner, another SQLite version) is refused all the same,
    /// never a failed apply that would stop the sync at this row on every retry.
    private func take(_ row: FleetRow, local: SQLiteValue?, in transaction: ReplicaTransaction,
                      onRefused: (_ key: String, _ reason: String) -> Void) throws -> Bool {
        do {
            try transaction.write(row.key, row.value, writer: .fleet(origin: row.origin))
            return true
        } catch let error as DefaultsError {
            guard let reason = try RowRefusal.reason(for: error, writing: row, in: transaction) else { throw error }
            try keepsLocal(row, local: local, reason: reason, in: transaction, onRefused: onRefused)
            return false
        }
    }

    /// Whether the file refuses `row` now: the declaration's own check, else the database's,
    /// asked by writing the row in a savepoint that is rolled back either way (a nested
    /// transaction of the store's: neither the file, its history nor its observers keep it).
    private func refuses(_ row: FleetRow, in transaction: ReplicaTransaction) throws -> Bool {
        if let value = row.value, try transaction.refusal(of: value, for: row.key) != nil { return true }
        do {
            try store.replicaTransaction { probe in
                try probe.write(row.key, row.value, writer: .fleet(origin: row.origin))
                throw WriteAccepted()
            }
        } catch is WriteAccepted {
            return false
        } catch let error as DefaultsError {
            guard try RowRefusal.reason(for: error, writing: row, in: transaction) != nil else { throw error }
            return true
        }
        return false
    }

    /// Ends ``refuses(_:in:)``'s savepoint once the database accepted the write.
    private struct WriteAccepted: Error {}

    /// Keeps the local value of a row the file refused (a peer running a version of the app that
    /// declares the key otherwise, during a rolling upgrade, or a peer with no declaration at
    /// all). The shadow takes the row's version with the *local* value: the row counts as seen
    /// (the table stays in step, and the row is not fetched again), yet the local value is not
    /// pending, so it is not pushed over the peer's. A later row that fits applies as usual.
    private func keepsLocal(_ row: FleetRow, local: SQLiteValue?, reason: String, in transaction: ReplicaTransaction,
                            onRefused: (_ key: String, _ reason: String) -> Void) throws {
        try setShadow(row.key, local, version: row.version, in: transaction)
        onRefused(row.key, reason)
    }

    /// Records that `rows` now stand in the fleet's table at `version`, unless a newer row of
    /// the same key was already applied here.
    func recordPushed(_ rows: [PendingRow], version: Int64) throws {
        try store.replicaTransaction { transaction in
            for row in rows {
                if let known = try shadow(of: row.key, in: transaction), known.version >= version { continue }
                try setShadow(row.key, row.value, version: version, in: transaction)
            }
        }
    }

    // MARK: A table that went back in time

    /// Whether the fleet's table still holds what this file last saw of it, given every key's
    /// version there (``FleetTable/versions(on:)``) and the position this file reached.
    ///
    /// Versions only grow, and rows are never removed (a deletion is a row), so a table in
    /// step holds every key this file has a shadow of, at that version or a later one, and
    /// every row up to `position` at exactly the version of its shadow. A table restored from
    /// a backup, or a replica promoted before it caught up, breaks one of those: it lacks
    /// rows this file saw, or holds older ones, or numbers new pushes again from below.
    func isInStep(with versions: [HashedKey: Int64], position: Int64) throws -> Bool {
        if position > (versions.values.max() ?? 0) { return false }
        let shadows = try shadowVersions()
        for (key, version) in shadows {
            guard let current = versions[key], current >= version else { return false }
        }
        for (key, version) in versions where version <= position {
            guard shadows[key] == version else { return false }
        }
        return true
    }

    private func shadowVersions() throws -> [HashedKey: Int64] {
        try store.replicaRead { try $0.shadowVersions() }
    }

    /// Joins the table again from everything it holds (`rows`: all of them), in one
    /// transaction, and returns the new position (the table's largest version).
    ///
    /// Per key: a row newer than this file's shadow is news, applied as usual (a key changed
    /// here and not yet pushed keeps its local value). A row the table lost, or holds older
    /// or different at the version this file saw, is what the table forgot: the shadow takes
    /// the table's row (or goes, when the table lacks the key), so the local value differs
    /// from it and is pushed again. With `forgettingShadows` (a file put in place of the one
    /// the sync had: its shadows describe some other moment) every local row that differs
    /// from the table is pushed, and keys only the table has are taken from it.
    ///
    /// - Returns: the position to fetch after.
    func rejoin(_ rows: [FleetRow], identity: String, forgettingShadows: Bool,
                onRefused: (_ key: String, _ reason: String) -> Void = { _, _ in }) throws -> Int64 {
        try store.replicaTransaction { transaction in
            if forgettingShadows { try transaction.forgetShadows() }
            var inTable: Set<HashedKey> = []
            for row in rows {
                inTable.insert(HashedKey(row.key))
                let known = try shadow(of: row.key, in: transaction)
                if let known, known.version == row.version, SQLiteValue.isSameRow(known.value, row.value) { continue }
                // A row refused here before (``keepsLocal``: the shadow holds the local value at the
                // row's version) and refused still: not something the table forgot. Taking its value
                // into the shadow would make the local value look unpushed, and push it over the peer's.
                if let known, known.version == row.version,
                   SQLiteValue.isSameRow(known.value, try transaction.row(row.key)),
                   try refuses(row, in: transaction) { continue }
                if known.map({ row.version > $0.version }) ?? true {
                    let local = try transaction.row(row.key)
                    let isPending = !SQLiteValue.isSameRow(local, known?.value) || Self.isUnacknowledged(known)
                    if !isPending, !SQLiteValue.isSameRow(local, row.value) {
                        guard try take(row, local: local, in: transaction, onRefused: onRefused) else { continue }
                    }
                }
                try setShadow(row.key, row.value, version: row.version, in: transaction)
            }
            for key in try transaction.shadowVersions().keys where !inTable.contains(key) {
                try transaction.removeShadow(key.name)
            }
            let position = rows.map(\.version).max() ?? 0
            try transaction.setFleetState(fleet: identity, position: position)
            return position
        }
    }
}
#endif
