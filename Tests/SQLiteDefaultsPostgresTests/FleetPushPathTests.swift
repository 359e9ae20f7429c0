#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// The paths a push and its notification can take besides the short one: a push too large for
/// the notification's payload (the receiver fetches), and a role PostgreSQL refuses a session
/// function (the sync pushes in four round trips).
@Suite("Fleet push paths", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetPushPathTests {
    @Test("a push larger than a notification's 8000 bytes reaches the other machine by a fetch")
    func largePush() async throws {
        try await withPair { server, a, b in
            let blob = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try await a.store.set(.blob(blob), for: .raw("large.blob"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["large.blob"] == .blob(blob) })
            // Many keys in one transaction: one push, too many rows to carry.
            try await a.store.transaction { transaction in
                for index in 0..<500 { try transaction.set(.integer(Int64(index)), for: .raw("many.\(index)")) }
            }
            #expect(await waitUntil(timeout: .seconds(60)) { (0..<500).allSatisfy { b["many.\($0)"] == .integer(Int64($0)) } })
            // And a small one after them still takes the short path, in order.
            try await a.store.set(.text("after"), for: .raw("small"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["small"] == .text("after") })
            let expected = try snapshot(a.store)
            #expect(await waitUntil(timeout: .seconds(60)) { try snapshot(b.store) == expected })
        }
    }

    @Test("B's history names the machine a row came from, whether the notification carried it or B fetched it")
    func historyNamesTheMachine() async throws {
        try await withPair { server, a, b in
            let host = try #require(DefaultsWriter.current.host)
            try await a.store.set(.integer(7), for: .raw("carried"))
            try await a.store.set(.blob(Data(count: 20_000)), for: .raw("fetched"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["carried"] == .integer(7) && b["fetched"] == .blob(Data(count: 20_000)) })
            for key in ["carried", "fetched"] {
                let entry = try await #require(try b.store.history(keys: [key], limit: 1).first)
                #expect(entry.writer == DefaultsWriter(kind: .fleet, host: host), "\(key): \(entry.writer)")
            }
        }
    }

    @Test("a role without the TEMPORARY right pushes in four round trips, and the fleet works the same")
    func withoutTemporaryRight() async throws {
        try await withServer { server in
            try await server.createUser("limited", password: "secret")
            try await server.createDatabase("notemp")
            _ = try await server.psql("REVOKE TEMPORARY ON DATABASE notemp FROM PUBLIC")
            _ = try await server.psql("GRANT CREATE, USAGE ON SCHEMA public TO limited", database: "notemp")
            let url = server.url(user: "limited", password: "secret", database: "notemp") + "?sslmode=disable"
            let directory = try TemporaryDirectory()
            let a = try Machine(path: directory.path + "/a.sqlite", url: url)
            let b = try Machine(path: directory.path + "/b.sqlite", url: url)
            #expect(await a.connected())
            #expect(await b.connected())
            for value in 1...5 {
                try await a.store.set(.integer(Int64(value)), for: .raw("answer"))
                #expect(await waitUntil(timeout: .seconds(60)) { b["answer"] == .integer(Int64(value)) })
                try await b.store.set(.integer(Int64(value * 10)), for: .raw("back"))
                #expect(await waitUntil(timeout: .seconds(60)) { a["back"] == .integer(Int64(value * 10)) })
            }
            // The role really has no TEMPORARY right (so the four-round-trip push was the one used).
            #expect(try await server.psql("SELECT has_database_privilege('limited', 'notemp', 'TEMPORARY')") == "f")
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
            withExtendedLifetime(directory) {}
        }
    }
}
#endif
