#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// The machine's side of the fleet without a server: the shadow and the state live in the file
/// (the library's migration 0011 creates them), and the sync changes them only through
/// `ReplicaTransaction`'s named operations.
@Suite("Fleet: the file's own record of the fleet, without a server", .offThePool)
struct LocalReplicaTests {
    @Test func aFileJoinsAsNewThenStaysAMember() throws {
        let directory = try TemporaryDirectory()
        let replica = LocalReplica(store: try DefaultsStore(path: directory.database))
        #expect(try replica.join("fleet-a") == LocalReplica.Membership(position: 0, isNew: true))
        try replica.apply([FleetRow(key: "k", value: .integer(1), version: 3)], identity: "fleet-a", position: 3, asNewMember: true)
        #expect(try replica.join("fleet-a") == LocalReplica.Membership(position: 3, isNew: false))
        // Another table of that name: the shadows go, and the file joins it as new.
        #expect(try replica.join("fleet-b") == LocalReplica.Membership(position: 0, isNew: true, replacesAnother: true))
        #expect(try replica.pending(among: nil) == [PendingRow(key: "k", value: .integer(1))])
    }

    @Test func aLocalChangeIsPendingUntilPushed() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet")
        #expect(try replica.apply([FleetRow(key: "a", value: .text("x"), version: 1),
                                   FleetRow(key: "b", value: .integer(2), version: 2)],
                                  identity: "fleet", position: 2, asNewMember: true) == 2)
        #expect(try store.value(for: DefaultsKey<String>("a", default: "")) == "x")
        #expect(try replica.pending(among: nil).isEmpty)

        try store.set(5, for: DefaultsKey<Int>("b", default: 0))
        try store.remove(DefaultsKey<String>("a", default: ""))
        let pending = try replica.pending(among: nil)
        #expect(pending == [PendingRow(key: "a", value: nil), PendingRow(key: "b", value: .integer(5))])
        #expect(try replica.pending(among: [HashedKey("b")]) == [PendingRow(key: "b", value: .integer(5))])

        try replica.recordPushed(pending, version: 4)
        #expect(try replica.pending(among: nil).isEmpty)
        #expect(try replica.isInStep(with: [HashedKey("a"): 4, HashedKey("b"): 4], position: 2))
        #expect(try !replica.isInStep(with: [HashedKey("b"): 4], position: 2))  // the table lost a row this file saw
    }

    /// The change feed over rows the fleet applied: one entry per row, in the order they were
    /// applied, each naming the fleet as its writer, between this machine's own changes.
    @Test func aChangeFeedYieldsFleetAppliedRowsInOrderWithFleetWriters() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet")
        let start = try await store.newestSequence()
        try await store.set(1, for: DefaultsKey<Int>("local.before", default: 0))
        try replica.apply([FleetRow(key: "b", value: .text("x"), version: 1),
                           FleetRow(key: "a", value: .integer(2), version: 2),
                           FleetRow(key: "c", value: nil, version: 3)],
                          identity: "fleet", position: 3, asNewMember: true)
        try await store.set(2, for: DefaultsKey<Int>("local.after", default: 0))
        let entries = try await firstChanges(of: store.changes(since: start), count: 4)
        // `c` was never on this machine: removing it changes nothing, so it has no entry.
        #expect(entries.map(\.key) == ["local.before", "b", "a", "local.after"])
        #expect(entries.map(\.writer.kind) == [.library, .fleet, .fleet, .library])
        #expect(entries[1].value == .value(.text("x")) && entries[2].value == .value(.integer(2)))
        #expect(entries.map(\.sequence) == entries.map(\.sequence).sorted())
        // Removed by the fleet: one entry, a removal, named the fleet's.
        try replica.apply([FleetRow(key: "b", value: nil, version: 4)], identity: "fleet", position: 4, asNewMember: false)
        let removal = try #require(try await firstChanges(of: store.changes(since: entries[3].sequence), count: 1).first)
        #expect(removal.key == "b" && removal.value == .removed && removal.writer.kind == .fleet)
    }

    @Test func rejoiningForgetsWhatTheTableLost() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet")
        try replica.apply([FleetRow(key: "a", value: .integer(1), version: 1),
                           FleetRow(key: "b", value: .integer(2), version: 2)],
                          identity: "fleet", position: 2, asNewMember: true)
        // The table went back to a backup that holds `a` only: `b` must be pushed again.
        let position = try replica.rejoin([FleetRow(key: "a", value: .integer(1), version: 1)],
                                          identity: "fleet", forgettingShadows: false)
        #expect(position == 1)
        #expect(try replica.pending(among: nil) == [PendingRow(key: "b", value: .integer(2))])
        #expect(try replica.join("fleet") == LocalReplica.Membership(position: 1, isNew: false))
    }
}
#endif
