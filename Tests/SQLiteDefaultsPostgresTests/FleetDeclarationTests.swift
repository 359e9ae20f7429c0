#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// The fleet's side of declared keys, on the local replica alone (no PostgreSQL needed): rows
/// as a fetch from the fleet's table hands them over.
@Suite("Fleet: rows the local declarations refuse are not applied", .offThePool)
struct FleetDeclarationTests {
    @Test("a refused row keeps the local value, is reported once, is not pushed back; a later row that fits applies")
    func refusedRowKeepsLocalValue() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let timeout = DefaultsKey<Int>("timeout", default: 30)
        try store.declare(timeout)
        store[timeout] = 40
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet-a")
        try replica.recordPushed([PendingRow(key: "timeout", value: .integer(40))], version: 1)

        // A peer running the next version of the app, which declares timeout as text.
        var refused: [String] = []
        try replica.apply([FleetRow(key: "timeout", value: .text("45s"), version: 2),
                           FleetRow(key: "name", value: .text("Ada"), version: 3)],
                          identity: "fleet-a", position: 3, asNewMember: false) { key, reason in
            refused.append(key)
            #expect(reason.contains("\"timeout\" is int"), "\(reason)")
        }
        #expect(refused == ["timeout"])
        #expect(store[timeout] == 40)
        #expect(store[DefaultsKey<String>("name", default: "")] == "Ada")  // the sync went on
        #expect(try replica.pending(among: nil).isEmpty)  // the local value is not pushed over the peer's
        #expect(try replica.isInStep(with: [HashedKey("timeout"): 2, HashedKey("name"): 3], position: 3))
        // Joining the table again (a reconnect) finds the refused row where it was: still refused,
        // still not pushed over the peer's, and not reported again.
        _ = try replica.rejoin([FleetRow(key: "timeout", value: .text("45s"), version: 2),
                                FleetRow(key: "name", value: .text("Ada"), version: 3)],
                               identity: "fleet-a", forgettingShadows: false) { key, _ in refused.append(key) }
        #expect(refused == ["timeout"])
        #expect(store[timeout] == 40)
        #expect(try replica.pending(among: nil).isEmpty)

        // A later row that fits applies as usual.
        try replica.apply([FleetRow(key: "timeout", value: .integer(50), version: 4)],
                          identity: "fleet-a", position: 4, asNewMember: false) { key, _ in refused.append(key) }
        #expect(refused == ["timeout"])
        #expect(store[timeout] == 50)
        // A delete always applies: the key falls back to its default.
        try replica.apply([FleetRow(key: "timeout", value: nil, version: 5)], identity: "fleet-a", position: 5, asNewMember: false)
        #expect(store[timeout] == 30)
    }

    @Test("rolling upgrade: a machine that upgrades its declaration takes the next row of the new type")
    func rollingUpgrade() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let oldTimeout = DefaultsKey<Int>("timeout", default: 30)
        try store.declare(oldTimeout)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet-b")
        try replica.apply([FleetRow(key: "timeout", value: .real(2.5), version: 1)], identity: "fleet-b", position: 1, asNewMember: false)
        #expect(store[oldTimeout] == 30)
        // This machine now runs the new version, which declares a Double.
        let newTimeout = DefaultsKey<Double>("timeout", default: 30)
        try store.evolve(oldTimeout, to: newTimeout) { Double($0) }
        try replica.apply([FleetRow(key: "timeout", value: .real(3.5), version: 2)], identity: "fleet-b", position: 2, asNewMember: false)
        #expect(store[newTimeout] == 3.5)
    }

    @Test("rejoining a table keeps the local value of a refused row too")
    func rejoinRefuses() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let flag = DefaultsKey<Bool>("beta", default: false)
        try store.declare(flag)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet-c")
        var refused = 0
        _ = try replica.rejoin([FleetRow(key: "beta", value: .integer(2), version: 7)], identity: "fleet-c",
                               forgettingShadows: true) { _, _ in refused += 1 }
        #expect(refused == 1)
        #expect(store[flag] == false)
        #expect(!store.contains(flag))
    }
}
#endif
