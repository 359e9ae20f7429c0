#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// The fleet's table however it is spelled: one table, one channel, one creation lock.
@Suite("Fleet table names", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetNamingTests {
    /// No safety fetch for two minutes: a change that arrives sooner came through LISTEN/NOTIFY
    /// (so the deadlines below can be generous for a loaded machine and still prove it).
    static let listenOnly = DefaultsPostgresSync.Timing(operationTimeout: .seconds(20), safetyFetchInterval: .seconds(120),
                                                        minimumPushInterval: .milliseconds(10),
                                                        firstRetryDelay: .milliseconds(50), longestRetryDelay: .milliseconds(500))

    @Test("`spell` and `public.spell` are one table and hear each other's changes at once, not at the safety fetch")
    func spellings() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let a = try Machine(path: directory.path + "/a.sqlite", url: server.url(), table: "spell", timing: Self.listenOnly)
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url(), table: "public.spell", timing: Self.listenOnly)
            #expect(await a.connected())
            #expect(await b.connected())
            for turn in 1...3 {
                try await a.store.set(.integer(Int64(turn)), for: .raw("from.a"))
                #expect(await waitUntil(timeout: .seconds(30)) { b["from.a"] == .integer(Int64(turn)) }, "\(b.log.all)")
                try await b.store.set(.integer(Int64(turn)), for: .raw("from.b"))
                #expect(await waitUntil(timeout: .seconds(30)) { a["from.b"] == .integer(Int64(turn)) }, "\(a.log.all)")
            }
            #expect(try await server.psql("SELECT count(*) FROM public.spell") == "2")
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }

    @Test("eight syncs started at once on a new table, spelled two ways, all join it")
    func concurrentCreation() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let machines = try (0..<8).map { index in
                try Machine(path: directory.path + "/m\(index).sqlite", url: server.url(),
                            table: index.isMultiple(of: 2) ? "race" : "public.race")
            }
            for machine in machines {
                #expect(await machine.connected(), "\(machine.log.all)")
                #expect(!machine.hasEnded)
            }
            try await machines[0].store.set(.text("hello"), for: .raw("greeting"))
            for machine in machines {
                #expect(await waitUntil(timeout: .seconds(60)) { machine["greeting"] == .text("hello") })
            }
            for machine in machines { #expect(await machine.stop() == nil) }
        }
    }

    @Test("a table in a schema that does not exist is a configuration error, not a retry")
    func missingSchema() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let machine = try Machine(path: directory.path + "/a.sqlite", url: server.url(), table: "nosuchschema.t")
            let failure = await machine.failure(timeout: .seconds(60))
            #expect((failure as? DefaultsError)?.code == .invalidConfiguration, "\(String(describing: failure))")

            let sidecar = try SyncCommandTests.Sidecar(database: directory.path + "/b.sqlite",
                                                       arguments: ["--postgres", server.url(), "--table", "nosuchschema.t"])
            let outcome = await sidecar.process.wait(timeout: .seconds(60))
            #expect(outcome?.status == 1)
            let lines = outcome?.standardError.split(separator: "\n") ?? []
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains("schema") == true, "\(lines)")
            if outcome == nil { sidecar.process.send(SIGKILL) }
        }
    }

    @Test("a schema-qualified name longer than a channel's 63 bytes still carries changes (its channel is a digest)")
    func longName() async throws {
        let schema = String(repeating: "s", count: 40)
        let table = String(repeating: "t", count: 40)
        let name = FleetTableName(schema: schema, table: table)
        #expect(name.channel.utf8.count <= 63)
        #expect(name.channel == FleetTableName(schema: schema, table: table).channel)
        #expect(name.channel != FleetTableName(schema: schema, table: table + "x").channel)
        try await withServer { server in
            _ = try await server.psql("CREATE SCHEMA \(schema)")
            let directory = try TemporaryDirectory()
            let a = try Machine(path: directory.path + "/a.sqlite", url: server.url(), table: "\(schema).\(table)", timing: Self.listenOnly)
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url(), table: "\(schema).\(table)", timing: Self.listenOnly)
            #expect(await a.connected())
            #expect(await b.connected())
            try await a.store.set(.text("long"), for: .raw("greeting"))
            #expect(await waitUntil(timeout: .seconds(30)) { b["greeting"] == .text("long") }, "\(a.log.all) \(b.log.all)")
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }
}
#endif
