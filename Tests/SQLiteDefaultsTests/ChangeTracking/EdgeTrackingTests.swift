import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

/// DESIGN "Change tracking at the edges": links, values SQLite
/// cannot hold, restores, pruning gaps, progress after work, reads without a monitor, and the
/// polling fallback. Real files, real processes, the `sqlite3` shell.
@Suite("Change tracking at the edges", .offThePool, .requiresSQLiteShell)
struct EdgeTrackingTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    // MARK: Symbolic links

    @Test("a database path that is a symbolic link hears another process's writes through the file watch, not the safety poll")
    func symbolicLinkToTheFile() async throws {
        let realDirectory = directory.path + "/real", linkDirectory = directory.path + "/links"
        let real = realDirectory + "/defaults.sqlite", link = linkDirectory + "/defaults.sqlite"
        do { _ = try DefaultsStore(path: real) }  // the real file, with its schema
        try FileManager.default.createDirectory(atPath: linkDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        try await expectPromptDelivery(observing: link, writingThrough: real)
    }

    @Test("a database under a symbolically linked directory hears another process's writes through the file watch, not the safety poll")
    func fileUnderASymbolicallyLinkedDirectory() async throws {
        let realDirectory = directory.path + "/real", linkedDirectory = directory.path + "/linked"
        try FileManager.default.createDirectory(atPath: realDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linkedDirectory, withDestinationPath: realDirectory)
        let viaLink = linkedDirectory + "/defaults.sqlite", real = realDirectory + "/defaults.sqlite"
        try await expectPromptDelivery(observing: viaLink, writingThrough: real)
    }

    /// Another process sets 1…8 through `real`, 250 ms apart (pacing: a watch that missed the
    /// first write gets seven more chances to show it, each a separate commit); a store opened at
    /// `observed` whose safety poll is an hour away hears the last one, which only a watch on
    /// the real file can deliver. (A watch on the link alone would leave them to the safety poll.)
    private func expectPromptDelivery(observing observed: String, writingThrough real: String) async throws {
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .automatic(safetyPollInterval: .seconds(3_600))
        let store = try DefaultsStore(path: observed, configuration: configuration)
        let key = DefaultsKey<Int>("tick", default: 0)
        let arrivals = Collected<Int>()
        let token = store.observe(key) { arrivals.append($0.newValue) }
        let writes = 8
        let result = try await runHelper("write-spaced", real, "tick", "\(writes)", "250")
        try #require(result.status == 0, "writer failed: \(result.error)")
        #expect(await arrivals.waitAsync(timeout: .seconds(30)) { $0.contains(writes) },
                "the last write never arrived through the link (heard \(arrivals.all))")
        #expect(store[key] == writes)
        withExtendedLifetime(token) {}
    }

    // MARK: Values SQLite cannot hold

    @Test("NaN is refused with .encodingFailed (Double, Float) and nothing is written; inside JSON it round-trips")
    func nanIsRefused() async throws {
        let store = try DefaultsStore(path: directory.database)
        let double = DefaultsKey<Double>("double", default: 1)
        let float = DefaultsKey<Float>("float", default: 1)
        let doubles = DefaultsKey<[Double]>("doubles", default: [])
        let kept = DefaultsKey<Double>("kept", default: 0)
        try await store.set(2.5, for: kept)

        func expectRefused(_ what: String, _ body: () throws -> Void) {
            let error = #expect(throws: DefaultsError.self, "\(what) was accepted") { try body() }
            #expect(error?.code == .encodingFailed, "\(what): \(String(describing: error))")
        }
        expectRefused("Double.nan") { try store.set(Double.nan, for: double) }
        expectRefused("-Double.nan") { try store.set(-Double.nan, for: double) }
        expectRefused("Double.signalingNaN") { try store.set(Double.signalingNaN, for: double) }
        expectRefused("Float.nan") { try store.set(Float.nan, for: float) }
        // Inside JSON a NaN is the string "NaN" (the JSON coder's non-conforming float
        // strategy): SQLite holds that text, so it round-trips rather than being refused.
        try await store.set([1, .nan], for: doubles)
        #expect(try store.value(for: doubles).last?.isNaN == true)
        try await store.remove(doubles)
        expectRefused("NaN over a stored value") { try store.set(Double.nan, for: kept) }
        expectRefused("NaN in a transaction") { try store.transaction { tx in try tx.set(Double.nan, for: double) } }
        expectRefused("NaN in modify") { try store.modify(kept) { $0 = .nan } }
        store[float] = .nan
        #expect(store.lastReportedError?.code == .encodingFailed)

        #expect(!store.contains(double))
        #expect(!store.contains(float))
        #expect(!store.contains(doubles))
        #expect(store[double] == 1)
        #expect(store[float] == 1)
        #expect(try store.value(for: kept) == 2.5)
        #expect(try await sqlite3(directory.database, "SELECT group_concat(key || ':' || typeof(value)) FROM defaults") == "kept:real")
        // Another store reads the same: nothing half-written.
        let other = try DefaultsStore(path: directory.database)
        #expect(try other.value(for: kept) == 2.5)
        #expect(!other.contains(double))
    }

    @Test("-0.0 round-trips with its sign (Double, Float, [Double]), in this store and another")
    func negativeZeroRoundTrips() throws {
        let store = try DefaultsStore(path: directory.database)
        let double = DefaultsKey<Double>("double", default: 1)
        let float = DefaultsKey<Float>("float", default: 1)
        let doubles = DefaultsKey<[Double]>("doubles", default: [])
        try store.set(-0.0, for: double)
        try store.set(Float(-0.0), for: float)
        try store.set([-0.0, 0.0], for: doubles)
        #expect(try store.value(for: double).sign == .minus)
        #expect(store[double].sign == .minus)
        #expect(try store.value(for: float).sign == .minus)
        #expect(try store.value(for: doubles).map(\.sign) == [.minus, .plus])
        let other = try DefaultsStore(path: directory.database)
        #expect(try other.value(for: double).sign == .minus, "a second store reads +0.0")
        #expect(try other.value(for: double) == 0)
        #expect(try other.value(for: float).sign == .minus)
        #expect(try other.value(for: doubles).map(\.sign) == [.minus, .plus])
    }

    @Test("-0.0 written over 0.0 is stored and notifies a local observer and another store")
    func negativeZeroOverZeroNotifies() async throws {
        let store = try DefaultsStore(path: directory.database)
        let other = try DefaultsStore(path: directory.database)
        let key = DefaultsKey<Double>("zero", default: 1)
        try await store.set(0.0, for: key)
        #expect(other[key] == 0)  // cached in the other store
        let local = Collected<FloatingPointSign>(), external = Collected<FloatingPointSign>()
        let tokens = [store.observe(key) { local.append($0.newValue.sign) }, other.observe(key) { external.append($0.newValue.sign) }]
        try await store.set(-0.0, for: key)
        #expect(await local.waitAsync(count: 1))
        #expect(await external.waitAsync(count: 1, timeout: .seconds(60)), "the other store never heard -0.0 over 0.0")
        #expect(local.all == [.minus])
        #expect(external.all == [.minus])
        #expect(other[key].sign == .minus)
        #expect(try other.value(for: key).sign == .minus)
        // And back: 0.0 over -0.0.
        try await store.set(0.0, for: key)
        #expect(await local.waitAsync(count: 2))
        #expect(await external.waitAsync(count: 2, timeout: .seconds(60)))
        #expect(local.all == [.minus, .plus])
        #expect(external.all == [.minus, .plus])
        #expect(other[key].sign == .plus)
        withExtendedLifetime(tokens) {}
    }

    // MARK: Restore

    @Test("a sqlite3 .restore is noticed once per changed key by every observer and the cache; later writes too")
    func restoreIsNoticed() async throws {
        let database = directory.database, backup = directory.path + "/backup.sqlite"
        let store = try DefaultsStore(path: database)
        let keys = ["k1", "k2", "k3", "untouched"].map { DefaultsKey<String>($0, default: "none") }
        let perKey = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, Collected<String>()) })
        var tokens = keys.map { key in store.observe(key) { change in perKey[key.name]?.append(change.newValue) } }
        let all = Collected<AnyDefaultsChange>(), streamed = Collected<AnyDefaultsChange>()
        tokens.append(store.observe { all.append($0) })
        let changes = store.changes()
        let consumer = Task { for await change in changes { streamed.append(change) } }
        defer { consumer.cancel() }

        try await store.set("one", for: keys[0])
        try await store.set("two", for: keys[1])
        try await store.set("same", for: keys[3])
        #expect(await all.waitAsync { $0.count >= 3 })
        try await sqlite3(database, ".backup '\(backup)'")

        // Another process changes k1, removes k2, adds k3.
        try await sqlite3(database, """
            UPDATE defaults SET value = 'one-changed' WHERE key = 'k1';
            DELETE FROM defaults WHERE key = 'k2';
            INSERT INTO defaults(key, value) VALUES ('k3', 'three');
            """)
        #expect(await all.waitAsync { $0.count >= 6 })
        #expect(await streamed.waitAsync { $0.count >= 6 })
        #expect(store[keys[0]] == "one-changed")
        let marks = (all: all.count, streamed: streamed.count,
                     perKey: perKey.mapValues(\.count))

        try await sqlite3(database, ".restore '\(backup)'")
        let k1Restored = await perKey["k1"]!.waitAsync { $0.last == "one" }
        let k2Restored = await perKey["k2"]!.waitAsync { $0.last == "two" }
        let k3Restored = await perKey["k3"]!.waitAsync { $0.last == "none" }
        #expect(k1Restored && k2Restored && k3Restored, "per-key observers after the restore: \(perKey.mapValues(\.all))")
        // The cache serves the restored values.
        #expect(store[keys[0]] == "one")
        #expect(store[keys[1]] == "two")
        #expect(store[keys[2]] == "none")
        #expect(!store.contains(keys[2]))
        #expect(store[keys[3]] == "same")

        // A later write by another process is heard (the log's sequence went backwards).
        try await sqlite3(database, "UPDATE defaults SET value = 'later' WHERE key = 'k1'")
        #expect(await perKey["k1"]!.waitAsync { $0.last == "later" }, "a write after the restore was not heard: \(perKey["k1"]!.all)")
        #expect(await all.waitAsync { $0.last?.key == "k1" && $0.last?.newValue == .text("later") })
        #expect(await streamed.waitAsync { $0.last?.key == "k1" && $0.last?.newValue == .text("later") })
        // The barrier: a marker from the same writer, after everything that must not be announced
        // twice. Changes arrive in commit order, so once it is heard, any duplicate would be too.
        try await sqlite3(database, "INSERT INTO defaults(key, value) VALUES ('marker', 'm')")
        #expect(await all.waitAsync { $0.contains { $0.key == "marker" } })
        #expect(await streamed.waitAsync { $0.contains { $0.key == "marker" } })
        #expect(store[keys[0]] == "later")

        // Exactly once each, for the keys that differ; nothing for the untouched one.
        #expect(Array(perKey["k1"]!.all.dropFirst(marks.perKey["k1"]!)) == ["one", "later"])
        #expect(Array(perKey["k2"]!.all.dropFirst(marks.perKey["k2"]!)) == ["two"])
        #expect(Array(perKey["k3"]!.all.dropFirst(marks.perKey["k3"]!)) == ["none"])
        #expect(perKey["untouched"]!.all == ["same"], "the untouched key was announced again")
        for (name, changesSeen, mark) in [("observe(_:)", all.all, marks.all), ("changes()", streamed.all, marks.streamed)] {
            let afterRestore = Array(changesSeen.dropFirst(mark).filter { $0.key != "marker" })
            let restoreAnnouncements = afterRestore.dropLast()
            #expect(restoreAnnouncements.count == 3, "\(name) after the restore: \(afterRestore)")
            #expect(Set(restoreAnnouncements.map(\.key)) == ["k1", "k2", "k3"], "\(name): \(afterRestore)")
            let values = Dictionary(restoreAnnouncements.map { ($0.key, $0.newValue) }, uniquingKeysWith: { first, _ in first })
            #expect(values["k1"] == .text("one"))
            #expect(values["k2"] == .text("two"))
            if let removed = values["k3"] {
                #expect(removed == nil || removed == .null, "\(name): k3 should be announced as removed, not \(String(describing: removed))")
            }
            #expect(afterRestore.last?.newValue == .text("later"))
        }
        withExtendedLifetime(tokens) {}
    }

    // MARK: A pruning gap, all-key observers

    @Test("an all-key observer in a stopped child hears every key changed across a pruning gap")
    func allKeyObserverAcrossAPruningGap() async throws {
        let database = directory.database
        do {
            let setup = try DefaultsStore(path: database)
            try await setup.transaction { tx in
                for index in 0..<100 { try tx.set("initial", for: DefaultsKey<String>("k\(index)", default: "")) }
                for index in 0..<10 { try tx.set("same", for: DefaultsKey<String>("u\(index)", default: "")) }
                try tx.set("x", for: DefaultsKey<String>("back", default: ""))
            }
            try setup.close()
        }
        let child = try RunningHelper(["observe-all", database])
        let pid = try #require(await child.value(after: "pid ").flatMap { Int32($0) }, "helper: \(child.errors)")
        #expect(await child.line { $0 == "ready" } != nil)
        // The child hears a write while it runs.
        try await sqlite3(database, "INSERT INTO defaults(key, value) VALUES ('pre', 'heard')")
        #expect(await child.line { $0.hasPrefix("all pre ") } != nil, "the child heard nothing before the stop: \(child.errors)")
        #expect(await child.line { $0.hasPrefix("changes pre ") } != nil)
        let before = child.lines.count

        child.send(SIGSTOP)
        try await eventually("the child stopped") { isStopped(pid) }
        let stoppedAt = Int(try await sqlite3(database, "SELECT max(seq) FROM defaults_changes")) ?? -1
        // Changed and changed back inside the gap: the value is what the child last saw.
        try await sqlite3(database, "UPDATE defaults SET value = 'y' WHERE key = 'back'")
        try await sqlite3(database, "UPDATE defaults SET value = 'x' WHERE key = 'back'")
        let commits = 12_000
        let writer = try await runHelper("write-many", database, "\(commits)")
        try #require(writer.status == 0, "write-many failed: \(writer.error)")
        let oldest = Int(try await sqlite3(database, "SELECT min(seq) FROM defaults_changes")) ?? -1
        #expect(oldest > stoppedAt + 2, "the log was not pruned past the child's position (oldest \(oldest), child at \(stoppedAt)): no gap was made")
        child.send(SIGCONT)

        try await sqlite3(database, "INSERT INTO defaults(key, value) VALUES ('marker', 'm')")
        #expect(await child.line(timeout: .seconds(60)) { $0.hasPrefix("all marker ") } != nil, "no marker: \(child.errors)")
        #expect(await child.line(timeout: .seconds(60)) { $0.hasPrefix("changes marker ") } != nil)
        // Both markers heard: the child announces in commit order, so everything before them is in.

        let heard = Array(child.lines.all.dropFirst(before))
        for prefix in ["all", "changes"] {
            var last: [String: String] = [:], times: [String: Int] = [:]
            for line in heard {
                let parts = line.split(separator: " ").map(String.init)
                guard parts.count == 4, parts[0] == prefix, parts[1] != "marker" else { continue }
                last[parts[1]] = parts[2]
                times[parts[1], default: 0] += 1
            }
            let missing = (0..<100).filter { last["k\($0)"] != "t:v\(commits - 100 + $0)" }
            #expect(missing.isEmpty, "\(prefix): keys without their final value after the gap: \(missing.prefix(10).map { "k\($0)=\(last["k\($0)"] ?? "never")" })")
            let unchanged = (0..<10).map { "u\($0)" }.filter { times[$0] != nil }
            #expect(unchanged.isEmpty, "\(prefix): unchanged keys announced: \(unchanged)")
            #expect(times["back"] == nil, "\(prefix): 'back' (changed and changed back inside the gap) was announced \(times["back"] ?? 0) times")
            #expect(times["pre"] == nil, "\(prefix): 'pre' was announced again")
        }
    }

    /// Whether the process `pid` is stopped (state `T` in `/proc/PID/stat`).
    private func isStopped(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] == "T"
    }

    // MARK: Progress after work

    @Test("an unreadable row (longer than maximumValueLength) does not block later changes")
    func progressIsRecordedOnlyAfterWork() async throws {
        var configuration = DefaultsStore.Configuration()
        configuration.maximumValueLength = 100
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        let big = DefaultsKey<String>("big", default: "")
        let small = DefaultsKey<String>("small", default: "")
        let (token, seen) = collect(store, small)
        // One process, two commits back to back: one check of this store is likely to meet both rows.
        try await sqlite3(directory.database, """
            INSERT INTO defaults(key, value) VALUES ('big', replace(hex(zeroblob(500)), '0', 'b'));
            INSERT INTO defaults(key, value) VALUES ('small', 'x');
            """)
        #expect(try await sqlite3(directory.database, "SELECT length(value) FROM defaults WHERE key = 'big'") == "1000")
        #expect(await seen.waitAsync { $0.map(\.value).contains("x") }, "the change after the unreadable row was never heard")
        #expect(store[small] == "x")
        let error = #expect(throws: DefaultsError.self) { try store.value(for: big) }
        #expect(error?.code == .valueTooLarge)
        // And the next check goes on as usual.
        _ = try await runHelper("set-string", directory.database, "small", "y")
        #expect(await seen.waitAsync { $0.map(\.value).contains("y") })
        // And a big row written by this library's own process path: still no block.
        try await runHelper("set-string", directory.database, "big", String(repeating: "c", count: 1_000))
        try await runHelper("set-string", directory.database, "small", "z")
        #expect(await seen.waitAsync { $0.map(\.value).contains("z") })
        #expect(seen.all.map(\.value) == ["x", "y", "z"])
        withExtendedLifetime(token) {}
    }

    // MARK: No stale trusted reads

    @Test("with externalChangeDetection .off, reads return another process's committed value")
    func readsWithoutAMonitorAreNotStale() async throws {
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .off
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        store[.name] = "mine"
        store[.count] = 1
        #expect(store[.name] == "mine")  // cached
        #expect(store[.count] == 1)
        try await runHelper("set-string", directory.database, "name", "theirs")
        try await runHelper("set-int", directory.database, "count", "2")
        #expect(store[.name] == "theirs", "a cached read returned a stale value")
        #expect(try store.value(for: .name) == "theirs")
        #expect(store[.count] == 2)
        try await sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'name'")
        #expect(store[.name] == "Guest")
        #expect(!store.contains(.name))
        // And its own writes still read back.
        store[.name] = "mine again"
        #expect(store[.name] == "mine again")
    }

    // MARK: The polling fallback

    @Test("polling fallback: a store with .polling(interval: 50 ms) hears another process's write")
    func pollingFallbackHearsOtherProcesses() async throws {
        var configuration = DefaultsStore.Configuration()
        // A polled file gets no safety look (a day apart): only the 50 ms poll can find the changes.
        configuration.externalChangeDetection = .polling(interval: .milliseconds(50))
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        let (token, seen) = collect(store, .name)
        _ = try await runHelper("set-string", directory.database, "name", "polled")
        #expect(await seen.waitAsync { $0.count >= 1 })
        #expect(seen.all == [Seen(value: "polled", origin: .external)])
        #expect(store[.name] == "polled")
        try await sqlite3(directory.database, "UPDATE defaults SET value = 'from shell' WHERE key = 'name'")
        #expect(await seen.waitAsync { $0.count >= 2 })
        #expect(seen.all.last == Seen(value: "from shell", origin: .external))
        withExtendedLifetime(token) {}
    }
}
