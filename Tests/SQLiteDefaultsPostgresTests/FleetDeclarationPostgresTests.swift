import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing

/// Declared keys across a real fleet: two machines, one PostgreSQL server.
@Suite("Fleet sync and declared keys, through PostgreSQL", .slowTier, .requiresPostgreSQL, .serialized)
struct FleetDeclarationPostgresTests {
    @Test("rolling upgrade: a row the old declaration refuses keeps the local value, is logged once, and the sync goes on")
    func rollingUpgrade() async throws {
        try await withPair { _, a, b in
            // b still runs the old version (timeout: Int); a already runs the new one (String).
            let oldTimeout = DefaultsKey<Int>("timeout", default: 30)
            let newTimeout = DefaultsKey<String>("timeout", default: "30s")
            try b.store.declare(oldTimeout)
            try b.store.set(40, for: oldTimeout)
            #expect(await eventually { a.store[DefaultsKey<SQLiteValue?>("timeout")] == .integer(40) })
            try a.store.evolve(oldTimeout, to: newTimeout) { "\($0)s" }
            #expect(a.store[newTimeout] == "40s")
            // The sync goes on: a later key arrives at b, the refused row does not.
            try a.store.set(1, for: DefaultsKey<Int>("fence", default: 0))
            #expect(await eventually { b.store[DefaultsKey<Int>("fence", default: 0)] == 1 })
            #expect(b.store[oldTimeout] == 40)
            #expect(b.log.all.filter { $0.contains("not applied") && $0.contains("\"timeout\" is int") }.count == 1, "\(b.log.all)")
            // b's value is not pushed back over a's.
            try a.store.set(2, for: DefaultsKey<Int>("fence", default: 0))
            #expect(await eventually { b.store[DefaultsKey<Int>("fence", default: 0)] == 2 })
            #expect(a.store[newTimeout] == "40s")
            // A later row that fits b's declaration applies there.
            try a.store.undeclare("timeout")
            try a.store.set(50, for: oldTimeout)
            #expect(await eventually { b.store[oldTimeout] == 50 })
            #expect(b.log.all.filter { $0.contains("not applied") }.count == 1)
        }
    }
}
