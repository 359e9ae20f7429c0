#if Fleet && Prefs
import ChildProcesses
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
import Testing
import TestScheduling

/// `prefs sync` as a sidecar process: started, killed and stopped for real.
@Suite("prefs sync", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct SyncCommandTests {
    /// A running `prefs sync`, its standard error collected line by line.
    final class Sidecar: Sendable {
        let process: ChildProcess
        let errors = Collected<String>()

        /// Starts `prefs --db DATABASE sync ARGUMENTS`. `PGPASSWORD` is unset and `PGPASSFILE`
        /// names no file unless `environment` says otherwise, so the user's own never count.
        init(database: String, arguments: [String], environment: [String: String] = [:]) throws {
            let errors = errors
            let isolated = ["PGPASSWORD": "", "PGPASSFILE": "/nonexistent/pgpass"].merging(environment) { $1 }
            process = try ChildProcess(builtExecutable("prefs"), ["--db", database, "sync"] + arguments,
                                       environment: isolated, onErrorLine: { errors.append($0) })
        }

        func ready() async -> Bool {
            await errors.waitAsync(timeout: .seconds(60)) { $0.contains("ready") }
        }
    }

    static func freePort() async throws -> Int {
        // A port that was free a moment ago and that nothing listens on.
        let server = try await PostgresServer.start()
        let port = server.port
        await server.remove()
        return port
    }

    @Test("SIGKILL right after 50 local writes loses none of them: a restarted sidecar pushes them")
    func killedAfterWrites() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let path = directory.path + "/a.sqlite"
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url())
            #expect(await b.connected())
            let first = try Sidecar(database: path, arguments: ["--postgres", server.url(), "--ready"])
            #expect(await first.ready())

            let store = try DefaultsStore(path: path)
            for index in 0..<50 {
                try await store.set(.integer(Int64(index)), for: .raw("written.\(index)"))
            }
            first.process.send(SIGKILL)
            let killed = await first.process.wait(timeout: .seconds(30))
            #expect(killed?.killedBySignal == true)

            let second = try Sidecar(database: path, arguments: ["--postgres", server.url(), "--ready"])
            #expect(await second.ready())
            #expect(await waitUntil(timeout: .seconds(60)) { (0..<50).allSatisfy { b["written.\($0)"] == .integer(Int64($0)) } })
            // And the other way, to the sidecar's file, observed by the store in this process.
            try await b.store.set(.text("hello"), for: .raw("from.b"))
            #expect(await waitUntil(timeout: .seconds(60)) { ((try? store.entries()) ?? []).contains { $0.key == "from.b" } })

            second.process.send(SIGTERM)
            let outcome = await second.process.wait(timeout: .seconds(30))
            #expect(outcome?.killedBySignal == false)
            #expect(outcome?.status == 0)
            await b.stop()
            try store.close()
        }
    }

    @Test("a refused port: one line, retries until the server is there, exit 0 on SIGTERM")
    func refusedPort() async throws {
        let directory = try TemporaryDirectory()
        let port = try await Self.freePort()
        let sidecar = try Sidecar(database: directory.database,
                                  arguments: ["--postgres", "postgres://postgres@127.0.0.1:\(port)/postgres"])
        #expect(await sidecar.errors.waitAsync(timeout: .seconds(60)) { $0.contains { $0.contains("retrying") } })
        // Retries are quiet. Pacing, not the proof: two seconds of back-off, so that several
        // retries happen. The barrier is the sidecar's exit: once it has exited, it has written
        // everything it ever will, and there is still one line.
        try await Task.sleep(for: .seconds(2))
        sidecar.process.send(SIGTERM)
        let outcome = await sidecar.process.wait(timeout: .seconds(30))
        #expect(outcome?.killedBySignal == false)
        #expect(outcome?.status == 0)
        #expect(sidecar.errors.all.count == 1, "\(sidecar.errors.all)")
        #expect(sidecar.errors.all.first?.hasPrefix("prefs: ") == true)
    }

    @Test("more sidecars than connection slots: each says within seconds that it is ready, or why not in PostgreSQL's words; the waiting ones say ready once a slot frees")
    func moreSidecarsThanSlots() async throws {
        // 8 connections, 3 of them the superuser's: 5 for the fleet's role, 8 sidecars.
        let server = try await PostgresServer.start(maxConnections: 8)
        defer { server.remove() }  // on a failure path; else awaited at the end
        try await server.createUser("fleet", password: "secret")
        try await server.createDatabase("fleet", owner: "fleet")
        let directory = try TemporaryDirectory()
        let sidecars = try (0..<8).map { index in
            try Sidecar(database: directory.path + "/m\(index).sqlite",
                        arguments: ["--postgres", server.url(user: "fleet", database: "fleet"), "--ready"],
                        environment: ["PGPASSWORD": "secret"])
        }
        func ready(_ sidecar: Sidecar) -> Bool { sidecar.errors.all.contains("ready") }
        func refused(_ sidecar: Sidecar) -> Bool {
            sidecar.errors.all.contains { $0.contains("remaining connection slots are reserved") || $0.contains("too many clients") }
        }
        // The contract is 5 s; the deadline allows a loaded machine.
        for sidecar in sidecars {
            #expect(await sidecar.errors.waitAsync(timeout: .seconds(20)) { _ in ready(sidecar) || refused(sidecar) }, "\(sidecar.errors.all)")
        }
        let waiting = sidecars.filter { !ready($0) }
        #expect(!waiting.isEmpty)
        for sidecar in sidecars {
            #expect(!sidecar.errors.all.contains { $0.contains("ConnectionPool") || $0.contains("_Module") }, "\(sidecar.errors.all)")
        }
        // One machine in step is stopped (SIGSTOP): it keeps its slot; the others leave theirs.
        let inStep = sidecars.filter(ready)
        let paused = try #require(inStep.first)
        paused.process.send(SIGSTOP)
        for sidecar in inStep.dropFirst() {
            sidecar.process.send(SIGTERM)
            #expect(await sidecar.process.wait(timeout: .seconds(30))?.status == 0)
        }
        // The waiting ones (three, for four free slots) get one each and say so.
        for sidecar in waiting {
            #expect(await sidecar.errors.waitAsync(timeout: .seconds(120)) { $0.contains("ready") }, "\(sidecar.errors.all)")
            #expect(sidecar.errors.all.contains { $0.contains("in step") })
        }
        // A write made meanwhile reaches the stopped machine once it goes on.
        let writer = try DefaultsStore(path: directory.path + "/m\(sidecars.firstIndex { $0 === waiting[0] } ?? 0).sqlite")
        try await writer.set(.integer(1), for: .raw("while.stopped"))
        paused.process.send(SIGCONT)
        let pausedStore = try DefaultsStore(path: directory.path + "/m\(sidecars.firstIndex { $0 === paused } ?? 0).sqlite")
        #expect(await waitUntil(timeout: .seconds(60)) { pausedStore.contains(.raw("while.stopped")) })
        for sidecar in waiting + [paused] {
            sidecar.process.send(SIGTERM)
            #expect(await sidecar.process.wait(timeout: .seconds(30))?.status == 0)
        }
        try writer.close()
        try pausedStore.close()
        await server.remove()
    }

    @Test("a bad URL, bad credentials, a missing database, a table of another shape, a bad table name: one line, exit 1")
    func oneLineErrors() async throws {
        try await withServer { server in
            try await server.createUser("fleet", password: "right")
            try await server.createDatabase("fleetdb", owner: "fleet")
            _ = try await server.psql("CREATE TABLE other_shape (key integer)")
            let directory = try TemporaryDirectory()
            // Passwords by PGPASSWORD: one in the URL would add a warning line.
            let cases: [(arguments: [String], password: String, says: String)] = [
                (["--postgres", "not a url"], "right", "URL"),
                (["--postgres", "mysql://u@h/d"], "right", "scheme"),
                (["--postgres", server.url(user: "fleet")], "wrong", "login"),
                (["--postgres", server.url(database: "missing")], "right", "database"),
                // This server has no TLS; the URL demands it.
                (["--postgres", server.url() + "?sslmode=require"], "right", "TLS"),
                (["--postgres", server.url(), "--table", "other_shape"], "right", "shape"),
                (["--postgres", server.url(), "--table", "no-such name"], "right", "table name"),
                // Logged in, but PostgreSQL 15 lets no ordinary user create tables in `public`.
                (["--postgres", server.url(user: "fleet")], "right", "denied"),
            ]
            for (arguments, password, says) in cases {
                let sidecar = try Sidecar(database: directory.database, arguments: arguments,
                                          environment: ["PGPASSWORD": password])
                let outcome = await sidecar.process.wait(timeout: .seconds(90))
                #expect(outcome?.status == 1, "\(arguments)")
                #expect(outcome?.killedBySignal == false)
                let lines = outcome?.standardError.split(separator: "\n") ?? []
                #expect(lines.count == 1, "\(arguments): \(lines)")
                #expect(lines.first?.hasPrefix("prefs: ") == true)
                #expect(lines.first?.contains(says) == true, "\(arguments): \(lines)")
                #expect(lines.first?.contains("wrong") == false)
            }
            // The right password works.
            let good = try Sidecar(database: directory.database, arguments: ["--postgres", server.url(user: "fleet", database: "fleetdb"), "--ready"],
                                   environment: ["PGPASSWORD": "right"])
            #expect(await good.ready())
            good.process.send(SIGINT)
            #expect(await good.process.wait(timeout: .seconds(30))?.status == 0)
        }
    }
}
#endif
