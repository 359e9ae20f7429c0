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
struct LocalReplica: Sendable {
    let store: DefaultsStore

    static let schema = """
        CREATE TABLE IF NOT EXISTS defaults_fleet_shadow (
            key     TEXT NOT NULL PRIMARY KEY,
            value,
            present INTEGER NOT NULL,
            version INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS defaults_fleet_state (
            fleet    TEXT NOT NULL,
            position INTEGER NOT NULL
        );
        """

    /// Where this file stands in a fleet.
    struct Membership: Equatable {
        /// The version up to which the fleet's rows were applied.
        let position: Int64
        /// True when the file never finished joining this fleet's table: its first fetch
        /// then wins over local values (see ``apply(_:identity:position:asNewMember:)``).
        let isNew: Bool
    }

    /// Creates the tables when missing and reads the position. A file that last synced with
    /// another table (another identity) forgets that table's shadow and joins as new.
    func join(_ identity: String) throws -> Membership {
        try store.replicaTransaction { transaction in
            try transaction.execute(Self.schema)
            let rows = try transaction.rows("SELECT fleet, position FROM defaults_fleet_state")
            if rows.count == 1, case .text(identity) = rows[0][0], case .integer(let position) = rows[0][1] {
                return Membership(position: position, isNew: false)
            }
            try transaction.execute("DELETE FROM defaults_fleet_shadow; DELETE FROM defaults_fleet_state")
            return Membership(position: 0, isNew: true)
        }
    }

    /// The rows changed here and not yet pushed: every key whose row differs from its shadow,
    /// among `keys`, or among all keys when `keys` is nil.
    func pending(among keys: Set<String>?) throws -> [PendingRow] {
        try store.replicaRead { transaction in
            var pending: [PendingRow] = []
            if let keys {
                for key in keys.sorted() {
                    let local = try transaction.row(key)
                    if !SQLiteValue.isSameRow(local, try shadow(of: key, in: transaction)?.value) {
                        pending.append(PendingRow(key: key, value: local))
                    }
                }
                return pending
            }
            let rows = try transaction.rows("""
                SELECT d.key, 1, d.value, s.value, s.present FROM defaults d LEFT JOIN defaults_fleet_shadow s ON s.key = d.key
                UNION ALL
                SELECT s.key, 0, NULL, s.value, s.present FROM defaults_fleet_shadow s
                WHERE s.present AND NOT EXISTS (SELECT 1 FROM defaults d WHERE d.key = s.key)
                ORDER BY 1
                """)
            for row in rows {
                guard case .text(let key) = row[0] else { continue }
                let local: SQLiteValue? = row[1] == .integer(1) ? row[2] : nil
                let shadowValue: SQLiteValue? = row[4] == .integer(1) ? row[3] : nil
                if !SQLiteValue.isSameRow(local, shadowValue) {
                    pending.append(PendingRow(key: key, value: local))
                }
            }
            return pending
        }
    }

    private func shadow(of key: String, in transaction: ReplicaTransaction) throws -> (value: SQLiteValue?, version: Int64)? {
        let rows = try transaction.rows("SELECT value, present, version FROM defaults_fleet_shadow WHERE key = ?1", [.text(key)])
        guard let row = rows.first, case .integer(let version) = row[2] else { return nil }
        return (row[1] == .integer(1) ? row[0] : nil, version)
    }

    private func setShadow(_ key: String, _ value: SQLiteValue?, version: Int64, in transaction: ReplicaTransaction) throws {
        try transaction.rows("""
            INSERT INTO defaults_fleet_shadow(key, value, present, version) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value, present = excluded.present, version = excluded.version
            """, [.text(key), value ?? .null, .integer(value == nil ? 0 : 1), .integer(version)])
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
    func apply(_ rows: [FleetRow], identity: String, position: Int64, asNewMember: Bool) throws -> Int {
        try store.replicaTransaction { transaction in
            var changed = 0
            for row in rows {
                let known = try shadow(of: row.key, in: transaction)
                if let known, known.version >= row.version { continue }
                let local = try transaction.row(row.key)
                let isPending = !asNewMember && !SQLiteValue.isSameRow(local, known?.value)
                if !isPending, !SQLiteValue.isSameRow(local, row.value) {
                    try transaction.write(row.key, row.value)
                    changed += 1
                }
                try setShadow(row.key, row.value, version: row.version, in: transaction)
            }
            try transaction.execute("DELETE FROM defaults_fleet_state")
            try transaction.rows("INSERT INTO defaults_fleet_state(fleet, position) VALUES (?1, ?2)", [.text(identity), .integer(position)])
            return changed
        }
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
}
