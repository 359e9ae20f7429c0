import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

/// The fleet's local tables come from migration 0011 in every file, and a file the fleet sync
/// joined before (when the sync created them itself) keeps them and their rows.
@Suite("Migration 0011: the fleet's local tables", .offThePool, .requiresSQLiteShell)
struct FleetReplicaTablesTests {
    @Test func aFileTheFleetJoinedBeforeKeepsItsTablesAndRows() async throws {
        let directory = try TemporaryDirectory()
        // A file at schema 10 whose fleet tables the sync made with its own SQL, as it used to.
        let upToTen = Migration.embedded.prefix(10).map(\.sql).joined(separator: "\n")
        try await sqlite3(directory.database, upToTen + """

            PRAGMA user_version = 10;
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
            INSERT INTO defaults_fleet_shadow VALUES ('k', 1, 1, 7);
            INSERT INTO defaults_fleet_state VALUES ('fleet-a', 7);
            """)
        let store = try DefaultsStore(path: directory.database)
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "\(Migration.latestVersion)")
        let (shadow, states) = try store.replicaRead { transaction in
            (try transaction.shadow(of: "k"), try transaction.fleetStates())
        }
        #expect(shadow?.value == .integer(1) && shadow?.version == 7)
        #expect(states.count == 1 && states.first?.fleet == "fleet-a" && states.first?.position == 7)
    }

    @Test func theReplicationAPIReadsAndWritesTheTablesByName() throws {
        let store = try DefaultsStore.inMemory()
        try store.set(1, for: DefaultsKey<Int>("here", default: 0))
        try store.replicaTransaction { transaction in
            #expect(try transaction.fleetStates().isEmpty)
            try transaction.setFleetState(fleet: "f", position: 3)
            try transaction.setFleetState(fleet: "f", position: 4)  // one row, replaced
            try transaction.setShadow("here", .integer(1), version: 2)
            try transaction.setShadow("gone", nil, version: 3)
            try transaction.setShadow("there", .text("t"), version: 4)
        }
        try store.replicaRead { transaction in
            let states = try transaction.fleetStates()
            #expect(states.count == 1 && states.first?.position == 4)
            #expect(try transaction.shadowVersions() == [HashedKey("here"): 2, HashedKey("gone"): 3, HashedKey("there"): 4])
            #expect(try transaction.shadow(of: "gone")?.value == nil)
            let rows = try transaction.rowsBesideShadows()
            #expect(rows.map(\.key) == ["here", "there"])  // a removed key's shadow is no row
            #expect(rows.last?.local == nil && rows.last?.shadow == .text("t"))
            // A read transaction writes nothing.
            #expect(throws: DefaultsError.self) { try transaction.removeShadow("here") }
        }
        try store.replicaTransaction { transaction in
            try transaction.removeShadow("here")
            try transaction.forgetShadows()
            #expect(try transaction.shadowVersions().isEmpty)
            try transaction.forgetFleet()
            #expect(try transaction.fleetStates().isEmpty)
        }
    }
}
