import Foundation
import SQLiteDefaults

extension Workloads {
    /// A store whose table holds `rows` Int keys ("row.0" …), filled through raw SQLite in
    /// one transaction before the store opens (the change log emptied, as pruning would).
    public final class LargeTable: @unchecked Sendable {
        // Sendable proof: immutable after init; used by one thread at a time.
        public let store: DefaultsStore
        public let keys: [DefaultsKey<Int>]
        public let rows: Int
        let directory: TemporaryDirectory

        public init(rows: Int) throws {
            let directory = try TemporaryDirectory("scale")
            let path = directory.file("defaults.sqlite")
            do {
                let filler = try RawSQLite(path: path)
                try filler.transaction { for index in 0..<rows { try filler.set(index, for: "row.\(index)") } }
                try filler.execute("DELETE FROM defaults_changes")
                try filler.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            store = try DefaultsStore(path: path)
            keys = (0..<rows).map { DefaultsKey<Int>("row.\($0)", default: 0) }
            self.rows = rows
            self.directory = directory
        }

        /// Reads every key once, so every key is cached (as in a long-running server).
        public func warmAll() {
            var total = 0
            for key in keys { total &+= store[key] }
            consume(total)
        }
    }

    /// A fixed pseudo-random sequence of indexes (the same for every table size).
    static func randomIndexes(below bound: Int, count: Int = 1 << 16) -> [Int] {
        var generator = SplitMix64(seed: 0x5EED)
        return (0..<count).map { _ in Int(generator.next() % UInt64(bound)) }
    }

    /// `get` of a random key of the table, every key cached.
    public static func scaleGetRandom(_ table: LargeTable) -> Workload {
        let indexes = randomIndexes(below: table.rows)
        let mask = indexes.count - 1
        let store = table.store, keys = table.keys
        var next = 0
        table.warmAll()
        return Workload("get random key · \(table.rows) keys", keep: [table]) { count in
            var total = 0
            for _ in 0..<count {
                total &+= store[keys[indexes[next & mask]]]
                next += 1
            }
            consume(total)
        }
    }

    /// The floor for `scaleGetRandom`: a random key of a `Mutex`-guarded `Dictionary` of
    /// `rows` keys (what memory caches do to a lookup in a bigger table, whoever does it).
    public static func scaleDictionaryGetRandom(rows: Int) -> Workload {
        let names = (0..<rows).map { "row.\($0)" }
        let dictionary = LockedDictionary<Int>(Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) }))
        let indexes = randomIndexes(below: rows)
        let mask = indexes.count - 1
        var next = 0
        return Workload("get random key · Mutex<Dictionary> · \(rows) keys", keep: [dictionary]) { count in
            var total = 0
            for _ in 0..<count {
                total &+= dictionary[names[indexes[next & mask]]] ?? 0
                next += 1
            }
            consume(total)
        }
    }

    /// A second floor for `scaleGetRandom`: the same `Mutex`-guarded `Dictionary`, looked up by
    /// the name of a `DefaultsKey` picked at random from `rows` of them. A `DefaultsKey` is an
    /// object, so every `get` through the API loads one more randomly placed object than a
    /// lookup by a `String` held in an array; this row measures that load, whoever does it.
    public static func scaleDictionaryGetRandomThroughKeys(rows: Int) -> Workload {
        let keys = (0..<rows).map { DefaultsKey<Int>("row.\($0)", default: 0) }
        let dictionary = LockedDictionary<Int>(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1.name, $0) }))
        let indexes = randomIndexes(below: rows)
        let mask = indexes.count - 1
        var next = 0
        return Workload("get random key · Mutex<Dictionary> through DefaultsKey · \(rows) keys", keep: [dictionary]) { count in
            var total = 0
            for _ in 0..<count {
                total &+= dictionary[keys[indexes[next & mask]].name] ?? 0
                next += 1
            }
            consume(total)
        }
    }

    /// `get` of one key, again and again, in a table of `rows` keys.
    public static func scaleGetHot(_ table: LargeTable) -> Workload {
        let store = table.store, key = table.keys[table.rows / 2]
        _ = store[key]
        return Workload("get one key · \(table.rows) keys", keep: [table]) { count in
            var total = 0
            for _ in 0..<count { total &+= store[key] }
            consume(total)
        }
    }

    /// `set` of a random existing key of the table, each with a new value.
    public static func scaleSetRandom(_ table: LargeTable) -> Workload {
        let indexes = randomIndexes(below: table.rows)
        let mask = indexes.count - 1
        let store = table.store, keys = table.keys
        var next = 0
        var counter = table.rows
        return Workload("set random key · \(table.rows) keys", keep: [table]) { count in
            for _ in 0..<count {
                counter += 1
                try store.set(counter, for: keys[indexes[next & mask]])
                next += 1
            }
        }
    }

    /// The floor for `scaleSetRandom`: raw SQLite setting a random existing key of a table of
    /// `rows` keys (what a bigger B-tree, a colder page cache and checkpoints of scattered
    /// pages cost any writer).
    public static func scaleRawSetRandom(rows: Int) throws -> Workload {
        let directory = try TemporaryDirectory("scale-raw")
        let raw = try RawSQLite(path: directory.file("raw.sqlite"))
        try raw.transaction { for index in 0..<rows { try raw.set(index, for: "row.\(index)") } }
        try raw.execute("DELETE FROM defaults_changes")
        try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let names = (0..<rows).map { "row.\($0)" }
        let indexes = randomIndexes(below: rows)
        let mask = indexes.count - 1
        var next = 0
        var counter = rows
        return Workload("set random key · raw SQLite · \(rows) keys", keep: [raw, directory]) { count in
            for _ in 0..<count {
                counter += 1
                try raw.set(counter, for: names[indexes[next & mask]])
                next += 1
            }
        }
    }

    /// `set` of one key, again and again, in a table of `rows` keys.
    public static func scaleSetHot(_ table: LargeTable) -> Workload {
        let store = table.store, key = table.keys[table.rows / 2]
        var counter = table.rows
        return Workload("set one key · \(table.rows) keys", keep: [table]) { count in
            for _ in 0..<count {
                counter += 1
                try store.set(counter, for: key)
            }
        }
    }
}

/// A small deterministic generator, so every run reads the same keys.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
