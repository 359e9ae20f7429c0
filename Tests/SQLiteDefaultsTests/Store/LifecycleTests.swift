import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

/// DESIGN "Lifecycle": `close()`, `isClosed`, `.closed`; releasing a store anywhere, its own
/// delivery thread included, is safe and leaves no thread or descriptor behind; bad
/// configuration is refused when the store opens.
@Suite("Lifecycle: close, isClosed, release on any thread", .offThePool, .requiresSQLiteShell)
struct LifecycleTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test("lifecycle: close() is idempotent and every throwing call then throws .closed")
    func closeIsIdempotentAndEveryThrowingCallThrowsClosed() async throws {
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "Ada"
        store[.count] = 7
        #expect(store[.name] == "Ada")  // cached before the close
        #expect(!store.isClosed)
        try store.close()
        #expect(store.isClosed)
        try store.close()  // idempotent: no error the second time
        #expect(store.isClosed)

        func expectClosed(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) succeeded on a closed store")
            } catch let error as DefaultsError where error.code == .closed {
                // as specified
            } catch {
                Issue.record("\(what) threw \(error), not .closed")
            }
        }
        expectClosed("set") { try store.set("Bob", for: .name) }
        expectClosed("value(for:)") { _ = try store.value(for: .name) }
        expectClosed("value(for:) of an uncached key") { _ = try store.value(for: DefaultsKey<Int>("never.read", default: 0)) }
        expectClosed("remove") { try store.remove(.name) }
        expectClosed("modify") { try store.modify(.count) { $0 += 1 } }
        expectClosed("transaction") { try store.transaction { tx in tx[.count] = 1 } }
        expectClosed("entries") { _ = try store.entries() }

        // The getter answers the key's default, even for a key that was cached.
        #expect(store[.name] == "Guest")
        #expect(store[.count] == 0)
        // Nothing was written after the close.
        #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'name'") == "Ada")
        #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'count'") == "7")
    }

    @Test("lifecycle: the subscript setter of a closed store reports .closed on reportedErrors() and lastReportedError")
    func setterOfAClosedStoreReportsClosed() async throws {
        let store = try DefaultsStore(path: directory.database)
        let failures = store.reportedErrors()
        try store.close()
        store[.name] = "after close"
        #expect(store.lastReportedError?.code == .closed)
        let reported = await firstElement(of: failures, timeout: .seconds(10))
        #expect(reported?.code == .closed, "reportedErrors (obtained before the close) yielded \(String(describing: reported))")
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults WHERE key = 'name'") == "0")
    }

    @Test("lifecycle: updates(), changes(key) and changes() end after close()")
    func sequencesEndAfterClose() async throws {
        let store = try DefaultsStore(path: directory.database)
        let updates = store.updates(.name)
        let updatesWithoutInitial = store.updates(.count, initial: false)
        let keyChanges = store.changes(.name)
        let changes = store.changes()
        store[.name] = "before close"
        try store.close()
        #expect(await ends(updates, within: .seconds(10)), "updates() still running 10 s after close()")
        #expect(await ends(updatesWithoutInitial, within: .seconds(10)), "updates(initial: false) still running 10 s after close()")
        #expect(await ends(keyChanges, within: .seconds(10)), "changes(key) still running 10 s after close()")
        #expect(await ends(changes, within: .seconds(10)), "changes() still running 10 s after close()")
        // A sequence asked for after the close ends at once too.
        #expect(await ends(store.changes(), within: .seconds(10)))
        #expect(await ends(store.changes(.name), within: .seconds(10)))
        withExtendedLifetime(store) {}
    }

    @Test("lifecycle: no observer is called after close() returns")
    func noObserverCalledAfterClose() async throws {
        let store = try DefaultsStore(path: directory.database)
        let writer = try DefaultsStore(path: directory.database)
        let witness = try DefaultsStore(path: directory.database)
        let perKey = Collected<String>(), allKeys = Collected<String>()
        let tokens = [store.observe(.name) { perKey.append($0.newValue) }, store.observe { allKeys.append($0.key) }]
        writer[.name] = "heard"
        #expect(await perKey.waitAsync(count: 1))
        #expect(await allKeys.waitAsync(count: 1))
        try store.close()
        let perKeyAtClose = perKey.count, allKeysAtClose = allKeys.count
        // Another store and another process write; a witness store hears both, the closed one nothing.
        let (witnessToken, witnessed) = collect(witness, .name)
        writer[.name] = "after close"
        try await runHelper("set-string", directory.database, "name", "from process")
        // The barrier: a marker from the last writer, after the changes the closed store must not
        // announce. Once the witness heard it, both changes were committed and delivered before it.
        let witnessedKeys = DefaultsChangeCollector(witness)
        try await runHelper("set-string", directory.database, "marker", "after both")
        try await witnessedKeys.waitFor(key: "marker", value: .text("after both"), timeout: .seconds(30))
        #expect(witnessed.all.map(\.value).contains("from process"))
        #expect(perKey.count == perKeyAtClose, "per-key observer called after close: \(perKey.all)")
        #expect(allKeys.count == allKeysAtClose, "all-key observer called after close: \(allKeys.all)")
        withExtendedLifetime((tokens, witnessToken)) {}
    }

    @Test("lifecycle: close() releases the file, and the main file alone holds the data")
    func closeReleasesTheFileAndCheckpoints() async throws {
        let store = try DefaultsStore(path: directory.database)
        let token = store.observe(.name) { _ in }
        for index in 0..<50 { store[DefaultsKey<Int>("n\(index)", default: 0)] = index }
        store[.name] = "checkpointed"
        #expect(!ProcessResources.descriptors(under: directory.path).isEmpty)
        try store.close()
        // The object is still alive: close() itself let go of every descriptor on the file.
        #expect(ProcessResources.descriptors(under: directory.path).isEmpty,
                "still open after close(): \(ProcessResources.descriptors(under: directory.path))")
        // The -wal was checkpointed: a copy of the main file alone, without -wal or -shm, has everything.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: directory.database + "-wal"))?[.size] as? NSNumber
        #expect((walSize?.intValue ?? 0) == 0, "the -wal still holds \(walSize?.intValue ?? 0) bytes after close()")
        let copy = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: directory.database, toPath: copy.database)
        #expect(try await readOnly(copy.database, "SELECT value FROM defaults WHERE key = 'name'") == "checkpointed")
        #expect(try await readOnly(copy.database, "SELECT count(*) FROM defaults WHERE key GLOB 'n[0-9]*'") == "50")
        // Another store opens the file and reads what the closed one wrote.
        let next = try DefaultsStore(path: directory.database)
        #expect(next[.name] == "checkpointed")
        withExtendedLifetime(token) {}
    }

    @Test("lifecycle: 50 × open, observe, close leaves no thread or descriptor behind")
    func openObserveCloseFiftyTimes() async throws {
        // In a separate process, where no other test opens descriptors or threads.
        let result = try await runHelper("close-loop", directory.database, "count", "50")
        #expect(result.status == 0, "\(result.error)")
        let numbers = result.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(numbers.count == 4, "unexpected output: \(result.output)")
        #expect(numbers[1] <= numbers[0] + 2, "file descriptors before and after: \(numbers[0]) → \(numbers[1])")
        #expect(numbers[3] <= numbers[2] + 2, "threads before and after: \(numbers[2]) → \(numbers[3])")
        #expect(try DefaultsStore(path: directory.database)[.count] == 49)
    }

    @Test("lifecycle: close() inside the store's own observer callback")
    func closeInsideItsOwnCallback() async throws {
        let store = try DefaultsStore(path: directory.database)
        let writer = try DefaultsStore(path: directory.database)
        let calls = Collected<String>()
        let closeResult = Collected<String>()
        let token = store.observe(.name) { change in
            calls.append(change.newValue)
            do { try store.close(); closeResult.append("ok") } catch { closeResult.append("\(error)") }
        }
        writer[.name] = "external"  // delivered on the store's monitor thread
        #expect(await closeResult.waitAsync(count: 1, timeout: .seconds(30)))
        #expect(closeResult.all == ["ok"])
        #expect(store.isClosed)
        writer[.name] = "after"
        store[.name] = "refused"
        // The barrier: a witness on the file hears the writer's marker, written after "after";
        // changes are announced in commit order, so "after" reached every open store before it.
        let witnessed = DefaultsChangeCollector(try DefaultsStore(path: directory.database))
        writer[DefaultsKey<Bool>("marker", default: false)] = true
        try await witnessed.waitFor(key: "marker", value: .integer(1), timeout: .seconds(30))
        #expect(calls.all == ["external"])
        #expect(store.lastReportedError?.code == .closed)

        // And inside a local-change callback.
        let local = try DefaultsStore(path: directory.database)
        let localCalls = Collected<Int>()
        let localToken = local.observe(.count) { change in
            try? local.close()
            localCalls.append(change.newValue)
        }
        try await local.set(1, for: .count)
        #expect(await localCalls.waitAsync(count: 1))
        #expect(local.isClosed)
        #expect(throws: DefaultsError.self) { try local.set(2, for: .count) }
        // Nothing to wait for: the refused write committed nothing (the file still says 1), and the
        // one delivery that could call the observer is the one that closed the store.
        #expect(try DefaultsStore(path: directory.database)[.count] == 1)
        #expect(localCalls.all == [1])
        withExtendedLifetime((token, localToken)) {}
    }

    @Test("lifecycle: a store released on its own delivery thread, 50 times, leaves no thread or descriptor behind")
    func releaseInsideItsOwnCallback() async throws {
        // In a separate process: 50 rounds each of a store dropping its last reference inside an
        // external-change callback, inside a local-change callback, and closing itself in each.
        let result = try await runHelper("release-in-callback", directory.database, "50")
        #expect(result.status == 0, "the helper crashed or failed (status \(result.status)): \(result.error)")
        let numbers = result.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(numbers.count == 6, "unexpected output: \(result.output) \(result.error)")
        #expect(numbers[1] <= numbers[0] + 3, "file descriptors before and after: \(numbers[0]) → \(numbers[1])")
        #expect(numbers[3] <= numbers[2] + 3, "threads before and after: \(numbers[2]) → \(numbers[3])")
        #expect(numbers[4] == numbers[5], "stores deallocated after their callback dropped them: \(numbers[4]) of \(numbers[5])")
        #expect(numbers[5] == 200)
    }

    @Test("lifecycle: a safety poll interval or maximumValueLength out of range is refused with .invalidConfiguration")
    func invalidConfigurationIsRefused() throws {
        for interval in [Duration.zero, .seconds(-1), .milliseconds(-5)] {
            var configuration = DefaultsStore.Configuration()
            configuration.externalChangeDetection = .automatic(safetyPollInterval: interval)
            let error = #expect(throws: DefaultsError.self, "safety poll interval \(interval)") {
                try DefaultsStore(path: directory.database, configuration: configuration)
            }
            #expect(error?.code == .invalidConfiguration)
        }
        for length in [0, -1] {
            var configuration = DefaultsStore.Configuration()
            configuration.maximumValueLength = length
            let error = #expect(throws: DefaultsError.self, "maximumValueLength \(length)") {
                try DefaultsStore(path: directory.database, configuration: configuration)
            }
            #expect(error?.code == .invalidConfiguration)
        }
        // Valid edges still open.
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .automatic(safetyPollInterval: .milliseconds(1))
        configuration.maximumValueLength = 1
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        store[.count] = 3
        #expect(store[.count] == 3)
    }
}

/// Runs a query with `sqlite3 -readonly` (nothing written, no -wal created).
func readOnly(_ database: String, _ sql: String) async throws -> String {
    let result = try await runProcess(try sqlite3Path(), ["-readonly", "-batch", database, sql])
    guard result.status == 0 else { throw DefaultsError(.sqlite, "sqlite3 -readonly failed: \(result.error)") }
    return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
}
