#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// Machines (SQLite files, each with its own store, client and sync) in one process, against a
/// real PostgreSQL server that each test starts and removes.
@Suite("Fleet sync through PostgreSQL", .offThePool, .slowTier, .requiresPostgreSQL, .serialized)
struct FleetTests {
    static let answer = DefaultsKey<Int>("answer", default: 0)

    @Test("a write on one machine reaches the other's observers as an external change")
    func propagates() async throws {
        try await withPair { server, a, b in
            let seen = Collected<DefaultsChange<Int>>()
            let token = b.store.observe(Self.answer) { seen.append($0) }
            try await a.store.set(42, for: Self.answer)
            #expect(await seen.waitAsync { $0.contains { $0.newValue == 42 } })
            #expect(b.store[Self.answer] == 42)
            #expect(seen.all.allSatisfy { $0.origin == .external })
            // And back.
            try await b.store.set(7, for: Self.answer)
            #expect(await waitUntil(timeout: .seconds(60)) { a.store[Self.answer] == 7 })
            token.cancel()
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }

    @Test("a change feed on one machine yields another machine's writes in order, each named the fleet's")
    func feedOfFleetWrites() async throws {
        try await withPair { server, a, b in
            let start = try await b.store.newestSequence()
            // Each write reaches B before the next is made: written together, the fleet would
            // carry only each key's last value (the table holds values, not changes).
            for index in 1...5 {
                let key = DefaultsKey<Int>("feed.\(index)", default: 0)
                try await a.store.set(index, for: key)
                #expect(await waitUntil(timeout: .seconds(60)) { b.store[key] == index })
            }
            try await a.store.remove(DefaultsKey<Int>("feed.2", default: 0))
            let entries = try await firstChanges(of: b.store.changes(since: start, prefix: "feed."), count: 6)
            #expect(entries.map(\.key) == ["feed.1", "feed.2", "feed.3", "feed.4", "feed.5", "feed.2"])
            #expect(entries.last?.value == .removed)
            #expect(entries.allSatisfy { $0.writer.kind == .fleet })
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }

    @Test("every storage class arrives exactly: class and bits")
    func storageClasses() async throws {
        try await withPair { server, a, b in
            let values: [String: SQLiteValue] = [
                "int.min": .integer(.min), "int.max": .integer(.max), "int.zero": .integer(0),
                "real.negativeZero": .real(-0.0), "real.subnormal": .real(.leastNonzeroMagnitude),
                "real.max": .real(.greatestFiniteMagnitude), "real.infinity": .real(-.infinity), "real.third": .real(1.0 / 3.0),
                "text.empty": .text(""), "text.unicode": .text("héllo\u{0}wörld 🎉"), "text.json": .text(#"{"a":[1,2]}"#),
                "blob.empty": .blob(Data()), "blob.bytes": .blob(Data((0...255).map { UInt8($0) })),
            ]
            try await a.store.transaction { transaction in
                for (key, value) in values { try transaction.set(value, for: .raw(key)) }
            }
            // NULL is a row too (the API removes the row for nil; plain SQL can store NULL).
            _ = try await sqlite3(a.path, "INSERT INTO defaults(key, value) VALUES ('null', NULL)")
            #expect(await waitUntil(timeout: .seconds(60)) { (try? a.store.entries().count) == values.count + 1 })
            let expected = try snapshot(a.store)
            #expect(await waitUntil(timeout: .seconds(60)) { try snapshot(b.store) == expected })
            let classes = try await sqlite3(b.path, "SELECT key || ' ' || typeof(value) FROM defaults ORDER BY key")
            #expect(classes.contains("int.max integer"))
            #expect(classes.contains("real.negativeZero real"))
            #expect(classes.contains("text.unicode text"))
            #expect(classes.contains("blob.empty blob"))
            #expect(classes.contains("null null"))
        }
    }

    /// "é" as one code point and "e" + U+0301 are two rows to SQLite and to PostgreSQL, and one
    /// key to Swift's `==`: the sync's set of changed keys kept one of them, and the other was
    /// not pushed until the next session.
    @Test("canonically equivalent keys are two keys: both changed at once, both arrive")
    func canonicallyEquivalentKeys() async throws {
        try await withPair { server, a, b in
            let composed = "\u{E9}", decomposed = "e\u{301}"
            // Past the sessions' first exchange (which compares every key): from here on, only
            // the keys the store reports changed are pushed.
            try await a.store.set(1, for: Self.answer)
            #expect(await waitUntil(timeout: .seconds(60)) { b.store[Self.answer] == 1 })
            try await a.store.transaction { transaction in
                try transaction.set(SQLiteValue.integer(1), for: .raw(composed))
                try transaction.set(SQLiteValue.integer(2), for: .raw(decomposed))
            }
            #expect(await waitUntil(timeout: .seconds(60)) { b[composed] == .integer(1) && b[decomposed] == .integer(2) })
            #expect(try await server.psql("SELECT count(*) FROM defaults_fleet WHERE key <> 'answer'") == "2")
            // And changed again, from the other side, one at a time and together.
            try await b.store.set(SQLiteValue.integer(3), for: .raw(decomposed))
            #expect(await waitUntil(timeout: .seconds(60)) { a[decomposed] == .integer(3) && a[composed] == .integer(1) })
            #expect(await a.stop() == nil)
            #expect(await b.stop() == nil)
        }
    }

    @Test("deletes propagate, and so do writes from another process and the sqlite3 shell")
    func deletesAndOtherWriters() async throws {
        try await withPair { server, a, b in
            try await a.store.set(1, for: Self.answer)
            #expect(await waitUntil(timeout: .seconds(60)) { b.store.contains(Self.answer) })
            try await a.store.remove(Self.answer)
            #expect(await waitUntil(timeout: .seconds(60)) { !b.store.contains(Self.answer) })
            #expect(try await server.psql("SELECT storage_class FROM defaults_fleet WHERE key = 'answer'") == "deleted")

            // A plain SQL client on machine A's file: A's store hears it as external, and the
            // sync pushes it.
            _ = try await sqlite3(a.path, "INSERT INTO defaults(key, value) VALUES ('shell', 3.25)")
            #expect(await waitUntil(timeout: .seconds(60)) { b["shell"] == .real(3.25) })
            _ = try await sqlite3(a.path, "DELETE FROM defaults WHERE key = 'shell'")
            #expect(await waitUntil(timeout: .seconds(60)) { b["shell"] == nil && !((try? b.store.keys()) ?? ["shell"]).contains("shell") })
        }
    }

    @Test("no echo: alternating writes make one push each, and a quiet fleet stays quiet")
    func noEcho() async throws {
        try await withPair { server, a, b in
            for turn in 1...10 {
                let (writer, reader) = turn % 2 == 1 ? (a, b) : (b, a)
                try await writer.store.set(turn, for: Self.answer)
                #expect(await waitUntil(timeout: .seconds(60)) { reader.store[Self.answer] == turn })
            }
            // Every push is one version; an echo would be an eleventh.
            #expect(await waitUntilAwaiting(timeout: .seconds(60)) { (try? await server.psql("SELECT max(version) FROM defaults_fleet")) == "10" })
            // The barrier: a marker from each side, A's then B's, each carried to the other. Had
            // either side echoed a write it applied, that echo would have been pushed before the
            // marker that machine pushes next, and the markers' versions would not be 11 and 12.
            let marker = DefaultsKey<Int>("marker", default: 0)
            try await a.store.set(1, for: marker)
            #expect(await waitUntil(timeout: .seconds(60)) { b.store[marker] == 1 })
            try await b.store.set(2, for: marker)
            #expect(await waitUntil(timeout: .seconds(60)) { a.store[marker] == 2 })
            #expect(try await server.psql("SELECT max(version) FROM defaults_fleet") == "12")
            #expect(try await server.psql("SELECT version FROM defaults_fleet WHERE key = 'marker'") == "12")
            #expect(a.store[Self.answer] == 10 && b.store[Self.answer] == 10)
        }
    }

    @Test("writes made on both sides while PostgreSQL is down are pushed when it returns, and converge")
    func offlineBothSides() async throws {
        try await withPair { server, a, b in
            try await server.stopServer()
            #expect(await waitUntil(timeout: .seconds(60)) { !a.sync.isConnected && !b.sync.isConnected })
            // Local reads and writes go on.
            try await a.store.set(.text("from a"), for: .raw("offline.a"))
            try await b.store.set(.text("from b"), for: .raw("offline.b"))
            try await a.store.set(.text("a's"), for: .raw("offline.shared"))
            try await b.store.set(.text("b's"), for: .raw("offline.shared"))
            try await server.startServer()
            #expect(await a.connected())
            #expect(await b.connected())
            #expect(await waitUntil(timeout: .seconds(60)) {
                let left = try snapshot(a.store), right = try snapshot(b.store)
                return left == right && left.count == 3
            })
            // The value both hold is the fleet table's: the last push in commit order.
            let fleet = try await server.psql("SELECT convert_from(bytes_value, 'UTF8') FROM defaults_fleet WHERE key = 'offline.shared'")
            #expect(a["offline.shared"] == .text(fleet))
            // One line when the server went away, one when the sync came back: not one per retry.
            for machine in [a, b] {
                #expect(machine.log.all.filter { $0.contains("retrying") }.count == 1, "\(machine.log.all)")
                #expect(machine.log.all.filter { $0.contains("connected") }.count == 2, "\(machine.log.all)")
            }
        }
    }

    @Test("a server restarted in the middle of a stream of writes loses none of them")
    func serverRestartMidStream() async throws {
        try await withPair { server, a, b in
            for index in 0..<300 {
                try await a.store.set(.integer(Int64(index)), for: .raw("stream.\(index % 50)"))
                if index == 120 { try await server.restart() }
                if index % 10 == 0 { try await Task.sleep(for: .milliseconds(5)) }  // pacing: a stream, not a burst
            }
            let expected = try snapshot(a.store)
            #expect(await waitUntil(timeout: .seconds(90)) { try snapshot(b.store) == expected })
            #expect(b["stream.49"] == .integer(299))
        }
    }

    @Test("ten machines writing 20 keys each, some of them shared, converge to one state")
    func tenMachines() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let machines = try (0..<10).map { try Machine(path: directory.path + "/m\($0).sqlite", url: server.url()) }
            for machine in machines { #expect(await machine.connected()) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, machine) in machines.enumerated() {
                    group.addTask {
                        for key in 0..<20 {
                            // Keys 0–4 are written by every machine; the others are its own.
                            let name = key < 5 ? "shared.\(key)" : "m\(index).k\(key)"
                            try await machine.store.set(.text("m\(index)"), for: .raw(name))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let converged = await waitUntil(timeout: .seconds(120)) {
                let first = try snapshot(machines[0].store)
                guard first.count == 5 + 10 * 15 else { return false }
                return try machines.dropFirst().allSatisfy { try snapshot($0.store) == first }
            }
            #expect(converged)
            // Each shared key holds the fleet table's value.
            for key in 0..<5 {
                let fleet = try await server.psql("SELECT convert_from(bytes_value, 'UTF8') FROM defaults_fleet WHERE key = 'shared.\(key)'")
                #expect(machines[0]["shared.\(key)"] == .text(fleet))
            }
            for machine in machines { await machine.stop() }
        }
    }

    @Test("a file joining a fleet takes the fleet's values, then pushes the keys only it has")
    func joining() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url())
            #expect(await b.connected())
            try await b.store.set(.text("light"), for: .raw("theme"))
            #expect(await waitUntilAwaiting(timeout: .seconds(60)) { (try? await server.psql("SELECT count(*) FROM defaults_fleet")) == "1" })

            let path = directory.path + "/a.sqlite"
            let existing = try DefaultsStore(path: path)
            try await existing.set(.text("dark"), for: .raw("theme"))
            try await existing.set(.integer(1), for: .raw("only.a"))
            try existing.close()
            let a = try Machine(path: path, url: server.url())
            #expect(await a.connected())
            #expect(a["theme"] == .text("light"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["only.a"] == .integer(1) })
        }
    }

    @Test("changes made while the sync was away, more than the change log keeps, still converge")
    func longAbsence() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            let path = directory.path + "/a.sqlite"
            var a = try Machine(path: path, url: server.url())
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url())
            #expect(await a.connected())
            #expect(await b.connected())
            try await a.store.set(.integer(-1), for: .raw("gone.soon"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["gone.soon"] != nil })
            await a.stop()
            try a.store.close()

            let offline = try DefaultsStore(path: path)
            for batch in 0..<12 {
                try await offline.transaction { transaction in
                    for index in 0..<1_000 {
                        try transaction.set(.integer(Int64(batch * 1_000 + index)), for: .raw("key.\(index)"))
                    }
                }
            }
            try await offline.remove(DefaultsKey<SQLiteValue>.raw("gone.soon"))
            let expected = try snapshot(offline)
            try offline.close()

            a = try Machine(path: path, url: server.url())
            #expect(await a.connected())
            #expect(await waitUntil(timeout: .seconds(90)) { try snapshot(b.store) == expected },
                    "A: \(a.log.all.suffix(20)) B: \(b.log.all.suffix(20)) B has \((try? snapshot(b.store).count) ?? -1) of \(expected.count)")
            #expect(b["key.999"] == .integer(11_999))
            await a.stop()
            await b.stop()
        }
    }

    @Test("a server frozen with SIGSTOP: the sync gives its connection up at the deadline, and converges after SIGCONT")
    func frozenServer() async throws {
        let timing = DefaultsPostgresSync.Timing(operationTimeout: .seconds(2), safetyFetchInterval: .milliseconds(500),
                                                 minimumPushInterval: .milliseconds(10), firstRetryDelay: .milliseconds(50),
                                                 longestRetryDelay: .milliseconds(500))
        try await withPair(timing: timing) { server, a, b in
            // The postmaster and its backends (one per connection): this server's processes only.
            let pidFile = try String(contentsOfFile: server.dataDirectory + "/postmaster.pid", encoding: .utf8)
            let postmaster = try #require(pidFile.split(separator: "\n").first.flatMap { Int32($0) })
            let children = try await runProcess("/usr/bin/pgrep", ["-P", String(postmaster)]).output
                .split(separator: "\n").compactMap { Int32($0) }
            let frozen = [postmaster] + children
            for pid in frozen { kill(pid, SIGSTOP) }
            defer { for pid in frozen { kill(pid, SIGCONT) } }

            try await a.store.set(.integer(5), for: .raw("frozen"))
            // Local reads and writes go on; the push hangs until the deadline gives it up.
            #expect(a["frozen"] == .integer(5))
            #expect(await waitUntil(timeout: .seconds(30)) { !a.sync.isConnected })
            for pid in frozen { kill(pid, SIGCONT) }
            #expect(await waitUntil(timeout: .seconds(90)) { b["frozen"] == .integer(5) })
        }
    }

    @Test("sslmode=require: the sync talks TLS to a server that offers it")
    func tls() async throws {
        try await withServer(tls: true) { server in
            let directory = try TemporaryDirectory()
            let a = try Machine(path: directory.path + "/a.sqlite", url: server.url() + "?sslmode=require")
            let b = try Machine(path: directory.path + "/b.sqlite", url: server.url() + "?sslmode=require")
            #expect(await a.connected())
            #expect(await b.connected())
            try await a.store.set(.text("over TLS"), for: .raw("secure"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["secure"] == .text("over TLS") })
            // Both syncs' connections are encrypted (psql's own is left out).
            let encrypted = try await server.psql("""
                SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
                WHERE s.ssl AND a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
                """)
            #expect((Int(encrypted) ?? 0) >= 2)
            await a.stop()
            await b.stop()
        }
    }

    @Test("a key PostgreSQL cannot hold (NUL in its name) stays local, once warned, and blocks nothing")
    func nulKey() async throws {
        try await withPair { server, a, b in
            try await a.store.set(.integer(1), for: .raw("nul\u{0}key"))
            try await a.store.set(.integer(2), for: .raw("nul\u{0}key"))
            try await a.store.set(.integer(3), for: .raw("plain"))
            #expect(await waitUntil(timeout: .seconds(60)) { b["plain"] == .integer(3) })
            #expect(b["nul\u{0}key"] == nil)
            #expect(a.log.all.filter { $0.contains("NUL") }.count == 1)
        }
    }

    @Test("a table of another shape, an invalid table name, a closed store: run() throws a clear error")
    func fatalErrors() async throws {
        try await withServer { server in
            let directory = try TemporaryDirectory()
            _ = try await server.psql("CREATE TABLE other_shape (key integer, value text)")
            let shaped = try Machine(path: directory.path + "/a.sqlite", url: server.url(), table: "other_shape")
            let shapeError = await shaped.failure() as? DefaultsError
            #expect(shapeError?.code == .incompatibleTable)
            #expect(shapeError?.message.contains("other_shape") == true)
            #expect(try await server.psql("SELECT count(*) FROM other_shape") == "0")

            let named = try Machine(path: directory.path + "/b.sqlite", url: server.url(), table: "bad name; DROP TABLE x")
            #expect((await named.failure() as? DefaultsError)?.code == .invalidConfiguration)

            let closing = try Machine(path: directory.path + "/c.sqlite", url: server.url())
            #expect(await closing.connected())
            try closing.store.close()
            #expect((await closing.failure() as? DefaultsError)?.code == .closed)
        }
    }

    @Test("table names: TABLE or SCHEMA.TABLE, letters, digits and underscores, at most 63 bytes")
    func tableNames() throws {
        #expect(try FleetTableName("defaults_fleet").quoted == "\"defaults_fleet\"")
        #expect(try FleetTableName("ops.Fleet_2").quoted == "\"ops\".\"Fleet_2\"")
        for bad in ["", "1abc", "a-b", "a.b.c", "a\"b", "x;DROP TABLE y", String(repeating: "a", count: 64), ".a", "a."] {
            #expect(throws: DefaultsError.self, "\(bad)") { try FleetTableName(bad) }
        }
    }

    @Test("URLs: the parts, the defaults, sslmode, and clear errors that never show the password")
    func urls() throws {
        let url = try PostgresURL("postgresql://us%40er:p%3Ass@db.example:6543/prefs?sslmode=require&application_name=x")
        #expect(url.configuration.host == "db.example")
        #expect(url.configuration.port == 6543)
        #expect(url.configuration.username == "us@er")
        #expect(url.configuration.password == "p:ss")
        #expect(url.configuration.database == "prefs")
        #expect(url.description.contains("***") && !url.description.contains("p:ss") && !url.description.contains("p%3Ass"))
        #expect(try PostgresURL("postgres://u@h/d").configuration.port == 5432)
        #expect(try PostgresURL("postgres://u@[::1]:5433/d").configuration.host == "::1")
        for bad in ["", "not a url", "http://u@h/d", "postgres://h/d", "postgres://u@/d", "postgres://u@h", "postgres://u@h:0/d",
                    "postgres://u@h/d?sslmode=sometimes", "postgres://u@h/d?color=blue", "postgres://u:secret@h/d?connect_timeout=-1"] {
            #expect {
                try PostgresURL(bad)
            } throws: { error in
                let error = error as? DefaultsError
                return error?.code == .invalidConfiguration && error?.message.contains("secret") == false
            }
        }
    }
}
#endif
