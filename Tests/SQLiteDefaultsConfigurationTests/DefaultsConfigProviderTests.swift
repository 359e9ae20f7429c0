#if Configuration && Prefs
import Configuration
import ConfigurationTesting
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsConfiguration
import Testing
import TestScheduling

@Suite("DefaultsConfigProvider", .offThePool)
struct DefaultsConfigProviderTests {
    // MARK: swift-configuration's own conformance suite

    @Test("passes ConfigurationTesting.ProviderCompatTest")
    func providerCompat() async throws {
        let test = try TestStore()
        let store = test.store
        let magic = Data([0x6d, 0x61, 0x67, 0x69, 0x63]), magic2 = Data([0x6d, 0x61, 0x67, 0x69, 0x63, 0x32])
        try await store.transaction { tx in
            tx[DefaultsKey<String>("string", default: "")] = "Hello"
            tx[DefaultsKey<String>("other.string", default: "")] = "Other Hello"
            tx[DefaultsKey<Int>("int", default: 0)] = 42
            tx[DefaultsKey<Int>("other.int", default: 0)] = 24
            tx[DefaultsKey<Double>("double", default: 0)] = 3.14
            tx[DefaultsKey<Double>("other.double", default: 0)] = 2.72
            tx[DefaultsKey<Bool>("bool", default: false)] = true
            tx[DefaultsKey<Bool>("other.bool", default: true)] = false
            tx[DefaultsKey<Data>("bytes", default: Data())] = magic
            tx[DefaultsKey<Data>("other.bytes", default: Data())] = magic2
            tx[DefaultsKey<[String]>("stringy.array", default: [])] = ["Hello", "World"]
            tx[DefaultsKey<[String]>("other.stringy.array", default: [])] = ["Hello", "Swift"]
            tx[DefaultsKey<[Int]>("inty.array", default: [])] = [42, 24]
            tx[DefaultsKey<[Int]>("other.inty.array", default: [])] = [16, 32]
            tx[DefaultsKey<[Double]>("doubly.array", default: [])] = [3.14, 2.72]
            tx[DefaultsKey<[Double]>("other.doubly.array", default: [])] = [0.9, 1.8]
            tx[DefaultsKey<[Bool]>("booly.array", default: [])] = [true, false]
            tx[DefaultsKey<[Bool]>("other.booly.array", default: [])] = [false, true, true]
            tx[DefaultsKey<[Data]>("byteChunky.array", default: [])] = [magic, magic2]
            tx[DefaultsKey<[Data]>("other.byteChunky.array", default: [])] = [magic, magic2, magic]
        }
        try await ProviderCompatTest(provider: DefaultsConfigProvider(store: store)).runTest()
    }

    // MARK: The mapping table

    @Test("each ConfigType reads the row its DefaultsKey writes; .double reads INTEGER; missing and NULL are nil")
    func mapping() async throws {
        let test = try TestStore()
        let store = test.store
        try await store.set(8080, for: DefaultsKey<Int>("http.port", default: 0))
        try await store.set(3, for: DefaultsKey<Int>("ratio.whole", default: 0))
        try await store.set(true, for: DefaultsKey<Bool>("features.beta", default: false))
        try await store.set(["a", "b"], for: DefaultsKey<[String]>("hosts", default: []))
        try await shell(test.path, "INSERT INTO defaults(key, value) VALUES ('nothing', NULL);")
        let provider = DefaultsConfigProvider(store: store)
        #expect(try provider.value(forKey: ["http", "port"], type: .int).value?.content == .int(8080))
        #expect(try provider.value(forKey: ["http", "port"], type: .int).encodedKey == "http.port")
        #expect(try provider.value(forKey: ["ratio", "whole"], type: .double).value?.content == .double(3))
        #expect(try provider.value(forKey: ["features", "beta"], type: .bool).value?.content == .bool(true))
        #expect(try provider.value(forKey: ["hosts"], type: .stringArray).value?.content == .stringArray(["a", "b"]))
        #expect(try provider.value(forKey: ["absent"], type: .string).value == nil)
        #expect(try provider.value(forKey: ["nothing"], type: .string).value == nil)

        let config = ConfigReader(provider: provider)
        #expect(config.int(forKey: "http.port", default: 1) == 8080)
        #expect(config.bool(forKey: "features.beta", default: false))
        #expect(config.double(forKey: "ratio.whole") == 3)
        #expect(config.string(forKey: "absent", default: "fallback") == "fallback")
    }

    @Test("a key the file declares secret is isSecret without any specifier, and stays readable")
    func declaredSecrets() async throws {
        let test = try TestStore()
        let password = DefaultsKey<String>("db.password", default: "", secret: true)
        try await test.store.declare(password)
        test.store[password] = "hunter2"
        test.store[DefaultsKey<String>("db.host", default: "")] = "db.local"
        let provider = DefaultsConfigProvider(store: test.store)
        let value = try provider.value(forKey: ["db", "password"], type: .string).value
        #expect(value?.isSecret == true)
        #expect(value?.content == .string("hunter2"))
        #expect(try provider.value(forKey: ["db", "host"], type: .string).value?.isSecret == false)
        #expect(try provider.snapshot().value(forKey: ["db", "password"], type: .string).value?.isSecret == true)
        #expect(try await provider.fetchValue(forKey: ["db", "password"], type: .string).value?.isSecret == true)
    }

    @Test("secret keys are marked isSecret")
    func secrets() throws {
        let test = try TestStore()
        try test.store.set("hunter2", for: DefaultsKey<String>("db.password", default: ""))
        try test.store.set("db.local", for: DefaultsKey<String>("db.host", default: ""))
        let provider = DefaultsConfigProvider(store: test.store, name: "prefs", secrets: .specific(["db.password"]))
        #expect(provider.providerName == "DefaultsConfigProvider[prefs]")
        #expect(try provider.value(forKey: ["db", "password"], type: .string).value?.isSecret == true)
        #expect(try provider.value(forKey: ["db", "host"], type: .string).value?.isSecret == false)
        #expect(try provider.snapshot().value(forKey: ["db", "password"], type: .string).value?.isSecret == true)
    }

    @Test("prefixKeys(with:) keeps an application's keys under a prefix")
    func prefix() throws {
        let test = try TestStore()
        try test.store.set(9090, for: DefaultsKey<Int>("myapp.http.port", default: 0))
        let config = ConfigReader(provider: DefaultsConfigProvider(store: test.store).prefixKeys(with: "myapp"))
        #expect(config.int(forKey: "http.port") == 9090)
    }

    // MARK: Bad input

    @Test("key components that are empty or hold a dot throw .invalidKey")
    func invalidKeys() async throws {
        let test = try TestStore()
        let provider = DefaultsConfigProvider(store: test.store)
        for key: AbsoluteConfigKey in [[], ["a", ""], [""], ["a.b"], ["a", "b.c"]] {
            #expect(errorCode { _ = try provider.value(forKey: key, type: .string) } == .invalidKey, "\(key.components)")
            #expect(errorCode { _ = try provider.snapshot().value(forKey: key, type: .string) } == .invalidKey)
            // A watch yields the failure first, and does not end by itself.
            let first = try await provider.watchValue(forKey: key, type: .string) { updates in
                for await result in updates { return result as Result<LookupResult, any Error>? }
                return nil
            }
            #expect(throws: DefaultsError.self) { try first?.get() }
        }
        do {
            _ = try provider.value(forKey: ["a", "b.c"], type: .string)
        } catch let error as DefaultsError {
            #expect(error.description.contains("b.c"), "\(error)")
        }
    }

    @Test("a row of the wrong storage class throws .typeMismatch naming the key; ConfigReader falls back or rethrows")
    func wrongStorageClass() async throws {
        let test = try TestStore()
        try await shell(test.path, """
            INSERT INTO defaults(key, value) VALUES ('http.port', 'eighty'), ('features.beta', 2), ('blob', 1.5);
            """)
        let provider = DefaultsConfigProvider(store: test.store)
        do {
            _ = try provider.value(forKey: ["http", "port"], type: .int)
            Issue.record("expected an error")
        } catch let error as DefaultsError {
            #expect(error.code == .typeMismatch)
            #expect(error.key == "http.port")
            #expect(error.description.contains("http.port") && error.description.contains("TEXT"), "\(error)")
        }
        #expect(errorCode { _ = try provider.value(forKey: ["features", "beta"], type: .bool) } == .decodingFailed)
        #expect(errorCode { _ = try provider.value(forKey: ["blob"], type: .bytes) } == .typeMismatch)
        #expect(errorCode { _ = try provider.value(forKey: ["blob"], type: .int) } == .typeMismatch)
        #expect(errorCode { _ = try provider.value(forKey: ["http", "port"], type: .intArray) } == .decodingFailed)
        #expect(errorCode { _ = try provider.value(forKey: ["blob"], type: .intArray) } == .typeMismatch)
        #expect(errorCode { _ = try provider.snapshot().value(forKey: ["http", "port"], type: .int) } == .typeMismatch)

        let config = ConfigReader(provider: provider)
        #expect(config.int(forKey: "http.port", default: 8080) == 8080)
        #expect(throws: DefaultsError.self) { try config.requiredInt(forKey: "http.port") }
    }

    @Test("a JSON array with an element of the wrong type throws .decodingFailed naming the key")
    func wrongArrayElement() async throws {
        let test = try TestStore()
        try await shell(test.path, """
            INSERT INTO defaults(key, value) VALUES ('hosts', '["a", 1]'), ('ports', '[80, "x"]'),
              ('flags', '[true, 2]'), ('ratios', '[1.5, null]'), ('chunks', '["not base64!"]'), ('broken', '[1,');
            """)
        let provider = DefaultsConfigProvider(store: test.store)
        for (key, type) in [("hosts", ConfigType.stringArray), ("ports", .intArray), ("flags", .boolArray),
                            ("ratios", .doubleArray), ("chunks", .byteChunkArray), ("broken", .intArray)] {
            do {
                _ = try provider.value(forKey: AbsoluteConfigKey([key]), type: type)
                Issue.record("\(key) as \(type) should throw")
            } catch let error as DefaultsError {
                #expect(error.code == .decodingFailed, "\(key): \(error)")
                #expect(error.key == key)
                #expect(error.description.contains(key), "\(error)")
            }
        }
    }

    @Test("a closed store: reads throw .closed, watches yield the failure and end, snapshots throw")
    func closedStore() async throws {
        let test = try TestStore()
        try await test.store.set(1, for: DefaultsKey<Int>("n", default: 0))
        let provider = DefaultsConfigProvider(store: test.store)
        try test.store.close()
        #expect(errorCode { _ = try provider.value(forKey: ["n"], type: .int) } == .closed)
        #expect(errorCode { _ = try provider.snapshot().value(forKey: ["n"], type: .int) } == .closed)
        let results = try await provider.watchValue(forKey: ["n"], type: .int) { updates in
            var all: [Result<LookupResult, any Error>] = []
            for await result in updates { all.append(result) }
            return all
        }
        #expect(results.count == 1)
        #expect(throws: DefaultsError.self) { try results.first?.get() }
        let snapshots = try await provider.watchSnapshot { updates in
            var count = 0
            for await _ in updates { count += 1 }
            return count
        }
        #expect(snapshots == 1)
        // Through a ConfigReader: the default.
        #expect(ConfigReader(provider: provider).int(forKey: "n", default: 7) == 7)
    }

    @Test("closing the store ends live watches")
    func closeEndsWatches() async throws {
        let test = try TestStore()
        let provider = DefaultsConfigProvider(store: test.store)
        let config = ConfigReader(provider: provider)
        let ints = WatchRecorder<Int> { record in
            try await config.watchInt(forKey: "n", default: 0) { updates in for await value in updates { record(value) } }
        }
        let snapshots = WatchRecorder<Int> { record in
            try await provider.watchSnapshot { updates in for await _ in updates { record(0) } }
        }
        await ints.waitFor { $0 == 0 }
        await snapshots.waitFor { $0 == 0 }
        try test.store.close()
        #expect(await ints.waitForEnd())
        #expect(await snapshots.waitForEnd())
    }

    @Test("a watch whose handler throws: the error comes out, the watch is gone, the store goes on")
    func handlerThrows() async throws {
        struct Boom: Error {}
        let test = try TestStore()
        let provider = DefaultsConfigProvider(store: test.store)
        await #expect(throws: Boom.self) {
            try await provider.watchValue(forKey: ["n"], type: .int) { updates in
                for await _ in updates { throw Boom() }
            }
        }
        await #expect(throws: Boom.self) {
            try await ConfigReader(provider: provider).watchInt(forKey: "n", default: 0) { updates in
                for await _ in updates { throw Boom() }
            }
        }
        await #expect(throws: Boom.self) {
            try await provider.watchSnapshot { _ in throw Boom() }
        }
        try await test.store.set(5, for: DefaultsKey<Int>("n", default: 0))
        #expect(try provider.value(forKey: ["n"], type: .int).value?.content == .int(5))
    }

    // MARK: Watching

    @Test("a watch yields the current value first, then each change of its key, and nothing for other keys")
    func watchIsPerKey() async throws {
        let test = try TestStore()
        let key = DefaultsKey<Int>("a", default: 0), other = DefaultsKey<Int>("b", default: 0)
        try await test.store.set(1, for: key)
        let provider = DefaultsConfigProvider(store: test.store)
        let seen = WatchRecorder<ConfigContent?> { record in
            try await provider.watchValue(forKey: ["a"], type: .int) { updates in
                for await result in updates { record(try? result.get().value?.content) }
            }
        }
        await seen.waitFor { $0 == .int(1) }
        for n in 1...20 { try await test.store.set(n, for: other) }
        try await test.store.set(2, for: key)
        try await test.store.remove(key)
        await seen.waitFor { $0 == nil }
        #expect(seen.values == [.int(1), .int(2), nil])
    }

    @Test("watchSnapshot yields a consistent snapshot first, then after changes")
    func watchSnapshot() async throws {
        let test = try TestStore()
        let a = DefaultsKey<Int>("a", default: 0), b = DefaultsKey<Int>("b", default: 0)
        try await test.store.transaction { tx in tx[a] = 1; tx[b] = 1 }
        let provider = DefaultsConfigProvider(store: test.store)
        let seen = WatchRecorder<[Int?]> { record in
            try await provider.watchSnapshot { updates in
                for await snapshot in updates {
                    let values = try ["a", "b"].map { key -> Int? in
                        guard case .int(let n)? = try snapshot.value(forKey: AbsoluteConfigKey([key]), type: .int).value?.content
                        else { return nil }
                        return n
                    }
                    record(values)
                }
            }
        }
        await seen.waitFor { $0 == [1, 1] }
        // Both keys change in one transaction: no snapshot ever shows one without the other.
        for n in 2...10 { try await test.store.transaction { tx in tx[a] = n; tx[b] = n } }
        await seen.waitFor { $0 == [10, 10] }
        #expect(seen.values.allSatisfy { $0[0] == $0[1] }, "\(seen.values)")
    }

    @Test("prefs write from another process and the sqlite3 shell reach watchBool and watchInt through a ConfigReader")
    func liveChangesFromOtherProcesses() async throws {
        let test = try TestStore()
        let config = ConfigReader(providers: [DefaultsConfigProvider(store: test.store)])
        let beta = WatchRecorder<Bool> { record in
            try await config.watchBool(forKey: "features.beta", default: false) { updates in
                for await value in updates { record(value) }
            }
        }
        let limit = WatchRecorder<Int> { record in
            try await config.watchInt(forKey: "limits.requests", default: 100) { updates in
                for await value in updates { record(value) }
            }
        }
        await beta.waitFor { $0 == false }
        await limit.waitFor { $0 == 100 }

        try await Prefs.run(database: test.path, ["write", "features.beta", "1", "--type", "bool"])
        await beta.waitFor { $0 == true }
        try await Prefs.run(database: test.path, ["write", "limits.requests", "250", "--type", "int"])
        // fetch reads the database itself: the write is there the moment prefs returned.
        #expect(try await config.fetchInt(forKey: "limits.requests") == 250)
        await limit.waitFor { $0 == 250 }

        try await shell(test.path, "UPDATE defaults SET value = 500 WHERE key = 'limits.requests';")
        await limit.waitFor { $0 == 500 }
        try await shell(test.path, "UPDATE defaults SET value = 0 WHERE key = 'features.beta';")
        await beta.waitFor { $0 == false && beta.values.count >= 3 }
        try await shell(test.path, "DELETE FROM defaults WHERE key = 'limits.requests';")
        await limit.waitFor { $0 == 100 && limit.values.count >= 4 }
        #expect(beta.values == [false, true, false])
        #expect(limit.values == [100, 250, 500, 100])
    }

    @Test("latency from a prefs write to a watchInt update")
    func latency() async throws {
        let test = try TestStore()
        let config = ConfigReader(provider: DefaultsConfigProvider(store: test.store))
        let seen = WatchRecorder<Int> { record in
            try await config.watchInt(forKey: "latency.n", default: 0) { updates in
                for await value in updates { record(value) }
            }
        }
        await seen.waitFor { $0 == 0 }
        let writes = 50
        var fromStart: [Duration] = [], fromExit: [Duration] = []
        for n in 1...writes {
            let started = ContinuousClock.now
            try await Prefs.run(database: test.path, ["write", "latency.n", "\(n)", "--type", "int"])
            let exited = ContinuousClock.now
            guard let arrival = await seen.waitFor({ $0 == n }) else { return }
            fromStart.append(arrival.at - started)
            fromExit.append(arrival.at - exited)
        }
        func percentile(_ values: [Duration], _ p: Double) -> Duration {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
        }
        func ms(_ d: Duration) -> String {
            String(format: "%.2f ms", Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
        }
        let report = """
            prefs write → watchInt over \(writes) writes: \
            from spawning prefs median \(ms(percentile(fromStart, 0.5))), p99 \(ms(percentile(fromStart, 0.99))); \
            after prefs was seen to exit median \(ms(percentile(fromExit, 0.5))), p99 \(ms(percentile(fromExit, 0.99))) \
            (negative: the update arrived before the writer's exit was noticed)
            """
        print(report)
        #expect(seen.values == Array(0...writes))
    }
}
#endif
