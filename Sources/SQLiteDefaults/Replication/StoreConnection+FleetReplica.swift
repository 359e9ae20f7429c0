/// The fleet's local tables (`defaults_fleet_shadow`, `defaults_fleet_state`, Migrations/0011),
/// read and written on the store's connection inside a replica transaction (lock held).
extension StoreConnection {
    func fleetStates() throws -> [ReplicaTransaction.FleetState] {
        let statement = try database.statement("SELECT fleet, position FROM defaults_fleet_state")
        defer { statement.reset() }
        var states: [ReplicaTransaction.FleetState] = []
        while try statement.step() {
            let fleet = statement.value(at: 0), position = statement.value(at: 1)
            states.append(ReplicaTransaction.FleetState(
                fleet: { if case .text(let text) = fleet { text } else { nil } }(),
                position: { if case .integer(let number) = position { number } else { nil } }()))
        }
        return states
    }

    func setFleetState(fleet: String, position: Int64) throws {
        try database.execute("DELETE FROM defaults_fleet_state")
        let insert = try database.statement("INSERT INTO defaults_fleet_state(fleet, position) VALUES (?1, ?2)")
        defer { insert.reset() }
        try insert.bind(fleet, at: 1)
        try insert.bind(position, at: 2)
        _ = try insert.step()
    }

    func forgetFleetState() throws {
        try database.execute("DELETE FROM defaults_fleet_state")
    }

    func forgetShadows() throws {
        try database.execute("DELETE FROM defaults_fleet_shadow")
    }

    func shadow(of key: String) throws -> ReplicaTransaction.Shadow? {
        let statement = try database.statement("SELECT value, present, version FROM defaults_fleet_shadow WHERE key = ?1")
        return try statement.withBorrowedText(key, at: 1) {
            guard try statement.step(), case .integer(let version) = statement.value(at: 2) else { return nil }
            return ReplicaTransaction.Shadow(value: statement.value(at: 1) == .integer(1) ? statement.value(at: 0) : nil,
                                             version: version)
        }
    }

    func setShadow(_ key: String, _ value: SQLiteValue?, version: Int64) throws {
        let statement = try database.statement("""
            INSERT INTO defaults_fleet_shadow(key, value, present, version) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value, present = excluded.present, version = excluded.version
            """)
        defer { statement.reset() }
        try statement.bind(key, at: 1)
        try statement.bind(value ?? .null, at: 2)
        try statement.bind(Int64(value == nil ? 0 : 1), at: 3)
        try statement.bind(version, at: 4)
        _ = try statement.step()
    }

    /// Gives `key` an unacknowledged shadow (version -1) unless it has a shadow: a push of it
    /// is about to be sent (see ``ReplicaTransaction/markPushing(_:)``).
    func markPushing(_ key: String) throws {
        let statement = try database.statement("""
            INSERT INTO defaults_fleet_shadow(key, value, present, version) VALUES (?1, NULL, 0, -1)
            ON CONFLICT(key) DO NOTHING
            """)
        try statement.withBorrowedText(key, at: 1) { _ = try statement.step() }
    }

    func removeShadow(_ key: String) throws {
        let statement = try database.statement("DELETE FROM defaults_fleet_shadow WHERE key = ?1")
        try statement.withBorrowedText(key, at: 1) { _ = try statement.step() }
    }

    func shadowVersions() throws -> [HashedKey: Int64] {
        // An unacknowledged shadow (version -1) says nothing of the table.
        let statement = try database.statement("SELECT key, version FROM defaults_fleet_shadow WHERE version >= 0")
        defer { statement.reset() }
        var versions: [HashedKey: Int64] = [:]
        while try statement.step() {
            if case .text(let key) = statement.value(at: 0), case .integer(let version) = statement.value(at: 1) {
                versions[HashedKey(key)] = version
            }
        }
        return versions
    }

    func rowsBesideShadows() throws -> [ReplicaTransaction.RowBesideShadow] {
        let statement = try database.statement("""
            SELECT d.key, 1, d.value, s.value, s.present, s.version < 0 FROM defaults d LEFT JOIN defaults_fleet_shadow s ON s.key = d.key
            UNION ALL
            SELECT s.key, 0, NULL, s.value, s.present, s.version < 0 FROM defaults_fleet_shadow s
            WHERE (s.present OR s.version < 0) AND NOT EXISTS (SELECT 1 FROM defaults d WHERE d.key = s.key)
            ORDER BY 1
            """)
        defer { statement.reset() }
        var rows: [ReplicaTransaction.RowBesideShadow] = []
        while try statement.step() {
            guard case .text(let key) = statement.value(at: 0) else { continue }
            rows.append(ReplicaTransaction.RowBesideShadow(
                key: key,
                local: statement.value(at: 1) == .integer(1) ? statement.value(at: 2) : nil,
                shadow: statement.value(at: 4) == .integer(1) ? statement.value(at: 3) : nil,
                unacknowledged: statement.value(at: 5) == .integer(1)))
        }
        return rows
    }
}
