import Foundation
import SQLiteDefaults

extension Workloads {
    // MARK: set in autocommit

    /// One durable write per operation, each with a new value (a write of the stored value is
    /// a no-op by design, so the values cycle through a pool in which neighbours differ).
    public static func setInt(_ subject: Subject, configuration: DefaultsStore.Configuration = .init(), label: String? = nil) throws -> Workload {
        let name = "set Int · \(label ?? subject.rawValue)"
        let keyName = BenchKeys.int.name
        var counter = 0
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("set", configuration: configuration)
            let store = fixture.store, key = BenchKeys.int
            return Workload(name, keep: [fixture]) { count in
                for _ in 0..<count {
                    counter += 1
                    try store.set(counter, for: key)
                }
            }
        case .raw:
            let directory = try TemporaryDirectory("set-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            return Workload(name, keep: [raw, directory]) { count in
                for _ in 0..<count {
                    counter += 1
                    try raw.set(counter, for: keyName)
                }
            }
        case .userDefaults, .userDefaultsSynchronized:
            let reference = try UserDefaultsReference()
            let defaults = reference.defaults
            let synchronize = subject == .userDefaultsSynchronized
            return Workload(name, keep: [reference]) { count in
                for _ in 0..<count {
                    counter += 1
                    defaults.set(counter, forKey: keyName)
                    if synchronize { defaults.synchronize() }
                }
            }
        case .dictionary:
            let dictionary = LockedDictionary<Int>()
            return Workload(name, keep: [dictionary]) { count in
                for _ in 0..<count {
                    counter += 1
                    dictionary.set(counter, for: keyName)
                }
            }
        }
    }

    /// Diagnosis: `set` on a file store whose external-change monitor is off (no thread woken
    /// by the store's own commits).
    public static func setIntWithoutMonitor() throws -> Workload {
        var configuration = DefaultsStore.Configuration()
        configuration.externalChangeDetection = .off
        return try setInt(.defaults, configuration: configuration, label: "SQLiteDefaults, no external monitor")
    }

    /// `set` of a declared key, in a file with 10,000 declared keys: what the database's
    /// check of the declaration (Migrations/0006_declared_keys.sql) adds to a write.
    public static func setIntDeclared() throws -> Workload {
        let fixture = try StoreFixture("set-declared")
        let store = fixture.store, key = BenchKeys.int
        try store.transaction { _ in
            for index in 0..<9_999 {
                try store.declare(DefaultsDeclaration(key: "declared.\(index)", type: .int, defaultValue: .integer(0)))
            }
        }
        try store.declare(key)
        var counter = 0
        return Workload("set Int · SQLiteDefaults, declared key (10,000 declared)", keep: [fixture]) { count in
            for _ in 0..<count {
                counter += 1
                try store.set(counter, for: key)
            }
        }
    }

    /// The reference a user would write by hand: raw SQLite on a bare table (no triggers, no
    /// change log), the same prepared upsert. Next to `setInt(.raw)` it shows what the
    /// library's schema costs by itself; next to the library, what the whole package costs.
    ///
    /// With `pageSize`, the same table in a file with pages of that size: at the library's
    /// size it shows what the schema costs apart from the page size the library chose.
    public static func setIntBare(pageSize: Int? = nil) throws -> Workload {
        let keyName = BenchKeys.int.name
        var counter = 0
        let directory = try TemporaryDirectory("set-bare")
        let raw = try RawSQLite(path: directory.file("bare.sqlite"), schema: .bare, pageSize: pageSize)
        let name = "set Int · raw SQLite, bare table" + (pageSize.map { ", \($0)-byte pages" } ?? "")
        return Workload(name, keep: [raw, directory]) { count in
            for _ in 0..<count {
                counter += 1
                try raw.set(counter, for: keyName)
            }
        }
    }

    public static func setString(_ subject: Subject) throws -> Workload {
        let name = "set String · \(subject.rawValue)"
        let keyName = BenchKeys.string.name
        var counter = 0
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("set")
            let store = fixture.store, key = BenchKeys.string
            return Workload(name, keep: [fixture]) { count in
                for _ in 0..<count {
                    counter += 1
                    try store.set(Pool.string(counter), for: key)
                }
            }
        case .raw:
            let directory = try TemporaryDirectory("set-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            return Workload(name, keep: [raw, directory]) { count in
                for _ in 0..<count {
                    counter += 1
                    try raw.set(Pool.string(counter), for: keyName)
                }
            }
        case .userDefaults, .userDefaultsSynchronized:
            let reference = try UserDefaultsReference()
            let defaults = reference.defaults
            let synchronize = subject == .userDefaultsSynchronized
            return Workload(name, keep: [reference]) { count in
                for _ in 0..<count {
                    counter += 1
                    defaults.set(Pool.string(counter), forKey: keyName)
                    if synchronize { defaults.synchronize() }
                }
            }
        case .dictionary:
            let dictionary = LockedDictionary<String>()
            return Workload(name, keep: [dictionary]) { count in
                for _ in 0..<count {
                    counter += 1
                    dictionary.set(Pool.string(counter), for: keyName)
                }
            }
        }
    }

    /// A Codable struct: the library encodes it to JSON text; the raw baseline and
    /// UserDefaults encode it with a kept `JSONEncoder` (sorted keys, as the library stores it).
    public static func setCodable(_ subject: Subject) throws -> Workload {
        let name = "set Codable · \(subject.rawValue)"
        let keyName = BenchKeys.profile.name
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var counter = 0
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("set")
            let store = fixture.store, key = BenchKeys.profile
            return Workload(name, keep: [fixture]) { count in
                for _ in 0..<count {
                    counter += 1
                    try store.set(Pool.profile(counter), for: key)
                }
            }
        case .raw:
            let directory = try TemporaryDirectory("set-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            return Workload(name, keep: [raw, directory]) { count in
                for _ in 0..<count {
                    counter += 1
                    let json = String(decoding: try encoder.encode(Pool.profile(counter)), as: UTF8.self)
                    try raw.set(json, for: keyName)
                }
            }
        case .userDefaults, .userDefaultsSynchronized:
            let reference = try UserDefaultsReference()
            let defaults = reference.defaults
            let synchronize = subject == .userDefaultsSynchronized
            return Workload(name, keep: [reference]) { count in
                for _ in 0..<count {
                    counter += 1
                    defaults.set(try encoder.encode(Pool.profile(counter)), forKey: keyName)
                    if synchronize { defaults.synchronize() }
                }
            }
        case .dictionary:
            let dictionary = LockedDictionary<BenchProfile>()
            return Workload(name, keep: [dictionary]) { count in
                for _ in 0..<count {
                    counter += 1
                    dictionary.set(Pool.profile(counter), for: keyName)
                }
            }
        }
    }

    // MARK: 100 keys in one transaction

    /// One transaction writing 100 Int keys; an operation is the whole transaction, so the
    /// cost per key is a hundredth of it.
    public static func transaction100(_ subject: Subject) throws -> Workload {
        let names = (0..<100).map { "tx.\($0)" }
        var counter = 0
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("tx")
            let store = fixture.store
            let keys = names.map { DefaultsKey<Int>($0, default: 0) }
            return Workload("set 100 keys in one transaction · SQLiteDefaults", keep: [fixture]) { count in
                for _ in 0..<count {
                    counter += 1
                    try store.transaction { tx in
                        for key in keys { try tx.set(counter, for: key) }
                    }
                }
            }
        default:
            let directory = try TemporaryDirectory("tx-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            return Workload("set 100 keys in one transaction · raw SQLite", keep: [raw, directory]) { count in
                for _ in 0..<count {
                    counter += 1
                    try raw.transaction {
                        for name in names { try raw.set(counter, for: name) }
                    }
                }
            }
        }
    }

    // MARK: modify

    /// Atomic read-modify-write of an Int (+1): `BEGIN IMMEDIATE`, read, write, commit.
    public static func modify(_ subject: Subject) throws -> Workload {
        let keyName = BenchKeys.int.name
        switch subject {
        case .defaults:
            let fixture = try StoreFixture("modify")
            let store = fixture.store, key = BenchKeys.int
            return Workload("modify Int (+1) · SQLiteDefaults", keep: [fixture]) { count in
                for _ in 0..<count { try store.modify(key) { $0 += 1 } }
            }
        default:
            let directory = try TemporaryDirectory("modify-raw")
            let raw = try RawSQLite(path: directory.file("raw.sqlite"))
            return Workload("modify Int (+1) · raw SQLite", keep: [raw, directory]) { count in
                for _ in 0..<count {
                    try raw.transaction {
                        try raw.set((try raw.integer(for: keyName) ?? 0) + 1, for: keyName)
                    }
                }
            }
        }
    }
}
