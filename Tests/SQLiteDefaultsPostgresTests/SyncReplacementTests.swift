#if Fleet && Prefs
import ChildProcesses
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
import Testing
import TestScheduling

/// A sync whose database file is replaced under it (`mv other.sqlite db.sqlite`).
@Suite("A sync whose database file is replaced", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct SyncReplacementTests {
    @Test("DefaultsPostgresSync in an app ends with .databaseReplaced instead of running on deaf")
    func libraryEnds() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let path = directory.path + "/db.sqlite"
            let machine = try Machine(path: path, url: server.url())
            #expect(await machine.connected())
            let other = directory.path + "/other.sqlite"
            try DefaultsStore(path: other).close()
            #expect(rename(other, path) == 0)
            let failure = await machine.failure(timeout: .seconds(60))
            #expect((failure as? DefaultsError)?.code == .databaseReplaced, "\(String(describing: failure))")
        }
    }

    @Test("a file moved over the database: one line, the new file is reopened, its differences pushed, later writes too")
    func movedOver() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let path = directory.path + "/db.sqlite"
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url())
            #expect(await b.connected())
            let sidecar = try SyncCommandTests.Sidecar(database: path, arguments: ["--postgres", server.url(), "--ready"])
            #expect(await sidecar.ready())

            let first = try DefaultsStore(path: path)
            try await first.set(.integer(1), for: .raw("shared"))
            try await first.set(.integer(1), for: .raw("only.old"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["shared"] == .integer(1) && b["only.old"] == .integer(1) })
            try first.close()

            let other = directory.path + "/other.sqlite"
            let replacement = try DefaultsStore(path: other)
            try await replacement.set(.integer(2), for: .raw("shared"))
            try await replacement.set(.text("new"), for: .raw("only.new"))
            try replacement.close()
            #expect(rename(other, path) == 0)

            #expect(await sidecar.errors.waitAsync(timeout: .seconds(30)) { $0.contains { $0.contains("replaced") } },
                    "\(sidecar.errors.all)")
            #expect(await waitUntil(timeout: .seconds(60)) { b["shared"] == .integer(2) && b["only.new"] == .text("new") }, "\(sidecar.errors.all)")
            // What only the fleet had reaches the new file.
            let reopened = try DefaultsStore(path: path)
            #expect(await waitUntil(timeout: .seconds(60)) { ((try? reopened.entries()) ?? []).contains { $0.key == "only.old" } })

            // Later writes to the new file are pushed, and the fleet's reach it.
            try await reopened.set(.integer(3), for: .raw("after"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["after"] == .integer(3) }, "\(sidecar.errors.all)")
            try await b.store.set(.text("b"), for: .raw("from.b"))
            #expect(await waitUntil(timeout: .seconds(60)) { ((try? reopened.entries()) ?? []).contains { $0.key == "from.b" } })

            sidecar.process.send(SIGTERM)
            let outcome = await sidecar.process.wait(timeout: .seconds(30))
            #expect(outcome?.status == 0)
            let lines = outcome?.standardError.split(separator: "\n").filter { $0.contains("replaced") } ?? []
            #expect(lines.count == 1, "\(outcome?.standardError ?? "")")
            await b.stop()
            try reopened.close()
        }
    }
}
#endif
