import Foundation
import SQLiteDefaults

/// Factories for every measured operation. Each returns a ready `Workload` whose fixtures
/// (temporary files, stores, references) are released with it.
public enum Workloads {}

extension Workloads {
    // MARK: get of an unchanged key (cache hit)

    public static func getInt(_ subject: Subject) throws -> Workload {
        let name = "get Int · \(subject.rawValue)"
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("get")
            let store = fixture.store, key = BenchKeys.int
            try store.set(42, for: key)
            _ = store[key]
            return Workload(name, keep: [fixture]) { count in
                var total = 0
                for _ in 0..<count { total &+= store[key] }
                consume(total)
            }
        case .dictionary:
            let dictionary = LockedDictionary<Int>([BenchKeys.int.name: 42])
            let keyName = BenchKeys.int.name
            return Workload(name, keep: [dictionary]) { count in
                var total = 0
                for _ in 0..<count { total &+= dictionary[keyName] ?? 0 }
                consume(total)
            }
        case .raw:
            let directory = try TemporaryDirectory("get-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            try raw.set(42, for: BenchKeys.int.name)
            let keyName = BenchKeys.int.name
            return Workload(name, keep: [raw, directory]) { count in
                var total = 0
                for _ in 0..<count { total &+= try raw.integer(for: keyName) ?? 0 }
                consume(total)
            }
        case .userDefaults, .userDefaultsSynchronized:
            let reference = try UserDefaultsReference()
            let defaults = reference.defaults, keyName = BenchKeys.int.name
            defaults.set(42, forKey: keyName)
            return Workload(name, keep: [reference]) { count in
                var total = 0
                for _ in 0..<count { total &+= defaults.integer(forKey: keyName) }
                consume(total)
            }
        }
    }

    public static func getString(_ subject: Subject) throws -> Workload {
        let name = "get String · \(subject.rawValue)"
        let stored = "Ada Lovelace"
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("get")
            let store = fixture.store, key = BenchKeys.string
            try store.set(stored, for: key)
            _ = store[key]
            return Workload(name, keep: [fixture]) { count in
                var total = 0
                for _ in 0..<count { total &+= store[key].utf8.count }
                consume(total)
            }
        case .dictionary:
            let dictionary = LockedDictionary<String>([BenchKeys.string.name: stored])
            let keyName = BenchKeys.string.name
            return Workload(name, keep: [dictionary]) { count in
                var total = 0
                for _ in 0..<count { total &+= (dictionary[keyName] ?? "").utf8.count }
                consume(total)
            }
        case .raw:
            let directory = try TemporaryDirectory("get-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            try raw.set(stored, for: BenchKeys.string.name)
            let keyName = BenchKeys.string.name
            return Workload(name, keep: [raw, directory]) { count in
                var total = 0
                for _ in 0..<count { total &+= (try raw.text(for: keyName) ?? "").utf8.count }
                consume(total)
            }
        case .userDefaults, .userDefaultsSynchronized:
            let reference = try UserDefaultsReference()
            let defaults = reference.defaults, keyName = BenchKeys.string.name
            defaults.set(stored, forKey: keyName)
            return Workload(name, keep: [reference]) { count in
                var total = 0
                for _ in 0..<count { total &+= (defaults.string(forKey: keyName) ?? "").utf8.count }
                consume(total)
            }
        }
    }

    public static func getCodable(_ subject: Subject) throws -> Workload {
        let name = "get Codable · \(subject.rawValue)"
        let stored = Pool.profile(7)
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("get")
            let store = fixture.store, key = BenchKeys.profile
            try store.set(stored, for: key)
            _ = store[key]
            return Workload(name, keep: [fixture]) { count in
                var total = 0
                for _ in 0..<count { total &+= store[key].age }
                consume(total)
            }
        case .dictionary:
            let dictionary = LockedDictionary<BenchProfile>([BenchKeys.profile.name: stored])
            let keyName = BenchKeys.profile.name
            return Workload(name, keep: [dictionary]) { count in
                var total = 0
                for _ in 0..<count { total &+= dictionary[keyName]?.age ?? 0 }
                consume(total)
            }
        case .raw:
            // What a program without a cache does: read the JSON text and decode it.
            let directory = try TemporaryDirectory("get-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            try raw.set(Pool.json(stored), for: BenchKeys.profile.name)
            let keyName = BenchKeys.profile.name
            let decoder = JSONDecoder()
            return Workload(name, keep: [raw, directory]) { count in
                var total = 0
                for _ in 0..<count {
                    let text = try raw.text(for: keyName) ?? "{}"
                    total &+= try decoder.decode(BenchProfile.self, from: Data(text.utf8)).age
                }
                consume(total)
            }
        case .userDefaults, .userDefaultsSynchronized:
            let reference = try UserDefaultsReference()
            let defaults = reference.defaults, keyName = BenchKeys.profile.name
            defaults.set(try JSONEncoder().encode(stored), forKey: keyName)
            let decoder = JSONDecoder()
            return Workload(name, keep: [reference]) { count in
                var total = 0
                for _ in 0..<count {
                    total &+= try decoder.decode(BenchProfile.self, from: defaults.data(forKey: keyName) ?? Data("{}".utf8)).age
                }
                consume(total)
            }
        }
    }

    // MARK: get right after an external write

    /// A `get` of a key that another connection has just changed: each operation first has a
    /// second connection (raw SQLite on the same file) write a new value and waits until the
    /// store's monitor has taken it in (an observer on the store hears it), then times the
    /// `get` alone. The cache then holds the new row but not its decoded value.
    ///
    /// The store's safety poll is shortened to 20 ms: this measures the `get`, not how fast
    /// the change is noticed (that is the external-latency benchmark), and a write the file
    /// watch misses would otherwise stall the preparation for 2 s. How many were noticed
    /// only by the safety poll (waits over 15 ms) is reported in the workload's note.
    public static func getAfterExternalWrite(codable: Bool) throws -> Workload {
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .automatic(safetyPollInterval: .milliseconds(20))
        let fixture = try StoreFixture("miss", configuration: configuration)
        let store = fixture.store
        let writer = try RawSQLite(path: fixture.path, schema: .existing)
        let signal = Signal()
        var counter = 0
        var slow = 0
        func awaitChange(_ value: Int) throws {
            let start = Clock.nanoseconds()
            guard signal.wait(for: value) else { throw BenchmarkFailure("the store never saw the external write") }
            if Clock.nanoseconds() - start > 15_000_000 { slow += 1 }
        }
        let name: String
        let token: DefaultsObservation
        let prepare: () throws -> Void
        let run: (Int) throws -> Void
        if codable {
            name = "get Codable after external write · SQLiteDefaults"
            let key = BenchKeys.profile
            try store.set(Pool.profile(0), for: key)
            token = store.observe(key) { change in signal.fire(change.newValue.age) }
            prepare = {
                // Consecutive pool entries differ in `age` modulo 60: wait for that age.
                counter += 1
                try writer.set(Pool.profileJSON[counter & (Pool.size - 1)], for: key.name)
                try awaitChange(Pool.profile(counter).age)
            }
            run = { count in
                var total = 0
                for _ in 0..<count { total &+= store[key].age }
                consume(total)
            }
        } else {
            name = "get Int after external write · SQLiteDefaults"
            let key = BenchKeys.int
            try store.set(0, for: key)
            token = store.observe(key) { change in signal.fire(change.newValue) }
            prepare = {
                counter += 1
                try writer.set(counter, for: key.name)
                try awaitChange(counter)
            }
            run = { count in
                var total = 0
                for _ in 0..<count { total &+= store[key] }
                consume(total)
            }
        }
        return Workload(name, keep: [token, writer, fixture], prepareEach: prepare,
                        note: { "\(slow) of \(counter) external writes took over 15 ms to be noticed" }, run: run)
    }

    // MARK: get of a key not yet cached (a SQL read)

    /// The first `get` of each of many keys: a SQL read, a decode and a cache insert. The
    /// table is filled with `rows` keys first; each operation reads the next one.
    public static func getUncached(_ subject: Subject, rows: Int) throws -> Workload {
        let directory = try TemporaryDirectory("cold")
        let path = directory.file("defaults.sqlite")
        let names = (0..<rows).map { "cold.\($0)" }
        do {
            let filler = try RawSQLite(path: path)
            try filler.transaction { for (index, name) in names.enumerated() { try filler.set(index, for: name) } }
            try filler.execute("DELETE FROM defaults_changes")
        }
        var next = 0
        switch subject {
        case .defaults:
            let store = try DefaultsStore(path: path)
            let keys = names.map { DefaultsKey<Int>($0, default: 0) }
            return Workload("get Int uncached (SQL) · SQLiteDefaults", keep: [store, directory]) { count in
                var total = 0
                for _ in 0..<count {
                    total &+= store[keys[next % rows]]
                    next += 1
                }
                consume(total)
            }
        default:
            let raw = try RawSQLite(path: path, schema: .existing)
            return Workload("get Int uncached (SQL) · \(Subject.raw.rawValue)", keep: [raw, directory]) { count in
                var total = 0
                for _ in 0..<count {
                    total &+= try raw.integer(for: names[next % rows]) ?? 0
                    next += 1
                }
                consume(total)
            }
        }
    }
}
