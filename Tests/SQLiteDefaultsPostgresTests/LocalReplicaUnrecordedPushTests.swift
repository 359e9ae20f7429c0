#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// A push that reaches the fleet's table but is never recorded in the file (the sync stopped,
/// or the process died, between PostgreSQL's commit and the file's shadow write). For a key
/// pushed for the first time the file then had no trace of it: deleted here afterwards, it looked
/// like a key this file never had, and the table's row came back and undid the deletion (seen
/// once in `FleetTests.longAbsence`). The key is marked before the push is sent.
@Suite("Fleet: a first push the file never recorded", .offThePool)
struct LocalReplicaUnrecordedPushTests {
    private static let key = DefaultsKey<SQLiteValue?>("gone.soon")

    /// A member file with `gone.soon = -1` written here, pending, and marked as being pushed.
    private static func markedFile() throws -> (TemporaryDirectory, DefaultsStore, LocalReplica) {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet")
        try replica.apply([FleetRow(key: "other", value: .integer(1), version: 1)], identity: "fleet", position: 1, asNewMember: true)
        try store.set(.integer(-1), for: key)
        let pending = try replica.pending(among: nil)
        #expect(pending == [PendingRow(key: "gone.soon", value: .integer(-1))])
        try replica.markPushing(pending)
        return (directory, store, replica)
    }

    @Test("deleted after an unrecorded first push: the deletion stays pending, and the table's row does not undo it")
    func theDeletionIsNotUndone() throws {
        let (directory, store, replica) = try Self.markedFile()
        // The push landed at version 7; the sync stopped before recording it. The key is deleted here.
        try store.remove(Self.key)
        #expect(try replica.pending(among: nil) == [PendingRow(key: "gone.soon", value: nil)])
        #expect(try replica.pending(among: [HashedKey("gone.soon")]) == [PendingRow(key: "gone.soon", value: nil)])
        // The table's row comes back in the next fetch: the deletion stays, still to be pushed.
        try replica.apply([FleetRow(key: "gone.soon", value: .integer(-1), version: 7)], identity: "fleet", position: 7, asNewMember: false)
        #expect(try store.value(for: Self.key) == nil)
        #expect(try replica.pending(among: nil) == [PendingRow(key: "gone.soon", value: nil)])
        // Pushed and recorded: nothing pending.
        try replica.recordPushed([PendingRow(key: "gone.soon", value: nil)], version: 8)
        #expect(try replica.pending(among: nil).isEmpty)
        withExtendedLifetime(directory) {}
    }

    @Test("a recorded push replaces the mark; unchanged since, the key is not pending and the table is in step")
    func aRecordedPushReplacesTheMark() throws {
        let (directory, store, replica) = try Self.markedFile()
        // The mark alone says nothing of the table: it is in step with a table that lacks the key.
        #expect(try replica.isInStep(with: [HashedKey("other"): 1], position: 1))
        try replica.recordPushed([PendingRow(key: "gone.soon", value: .integer(-1))], version: 7)
        #expect(try replica.pending(among: nil).isEmpty)
        #expect(try replica.isInStep(with: [HashedKey("other"): 1, HashedKey("gone.soon"): 7], position: 1))
        // Its own row coming back changes nothing.
        #expect(try replica.apply([FleetRow(key: "gone.soon", value: .integer(-1), version: 7)],
                                  identity: "fleet", position: 7, asNewMember: false) == 0)
        #expect(try store.value(for: Self.key) == .integer(-1))
        withExtendedLifetime(directory) {}
    }

    @Test("an unrecorded push whose row comes back while the key is unchanged: applied as its own, then not pending")
    func anUnrecordedPushOfAnUnchangedKeySettles() throws {
        let (directory, store, replica) = try Self.markedFile()
        #expect(try replica.apply([FleetRow(key: "gone.soon", value: .integer(-1), version: 7)],
                                  identity: "fleet", position: 7, asNewMember: false) == 0)
        #expect(try store.value(for: Self.key) == .integer(-1))
        #expect(try replica.pending(among: nil).isEmpty)
        withExtendedLifetime(directory) {}
    }

    @Test("a push that never landed: rejoining a table without the key keeps it pending")
    func aPushThatNeverLandedStaysPending() throws {
        let (directory, _, replica) = try Self.markedFile()
        _ = try replica.rejoin([FleetRow(key: "other", value: .integer(1), version: 1)], identity: "fleet", forgettingShadows: false)
        #expect(try replica.pending(among: nil) == [PendingRow(key: "gone.soon", value: .integer(-1))])
        withExtendedLifetime(directory) {}
    }
}
#endif
