import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// A cached `get` returns the stored value as the type the key asks for, however the cache
/// holds it (plain values of up to two words inline in the entry, others in a box), and a key
/// is its exact bytes, as in SQLite.
@Suite("Cached reads", .offThePool)
struct CachedReadTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Reads the key twice (the second read is served from the cache) and from a fresh store.
    private func readBack<Value: Sendable & Equatable>(_ key: DefaultsKey<Value>, _ value: Value, _ store: DefaultsStore) throws {
        try store.set(value, for: key)
        #expect(try store.value(for: key) == value, "first read of \(key.name)")
        #expect(try store.value(for: key) == value, "cached read of \(key.name)")
        #expect(store[key] == value, "cached subscript of \(key.name)")
        let other = try DefaultsStore(path: directory.database)
        #expect(try other.value(for: key) == value, "another store's read of \(key.name)")
    }

    @Test func valuesInlineAndBoxedReadBackExactly() throws {
        let store = try DefaultsStore(path: directory.database)
        try readBack(DefaultsKey<Int>("int", default: 0), Int.min, store)
        try readBack(DefaultsKey<Int8>("int8", default: 0), -128, store)
        try readBack(DefaultsKey<UInt64>("uint64", default: 0), UInt64.max, store)
        try readBack(DefaultsKey<Bool>("bool", default: false), true, store)
        try readBack(DefaultsKey<Date>("date", default: .distantPast), Date(timeIntervalSince1970: 1_700_000_000.25), store)
        try readBack(DefaultsKey<UUID>("uuid", default: UUID()), UUID(uuidString: "F0E1D2C3-B4A5-9687-7869-5A4B3C2D1E0F")!, store)
        try readBack(DefaultsKey<Theme>("theme.inline", default: .light), .dark, store)
        try readBack(DefaultsKey<Level>("level", default: .low), .high, store)
        try readBack(DefaultsKey<Int?>("optional.int"), .some(-1), store)
        try readBack(DefaultsKey<UUID?>("optional.uuid"), UUID(uuidString: "00000000-0000-0000-0000-000000000001"), store)
        try readBack(DefaultsKey<String>("string", default: ""), "a longer text than fits in a small string 🙂", store)
        try readBack(DefaultsKey<[Int]>("array", default: []), [1, 2, 3], store)
        try readBack(DefaultsKey<Profile?>("profile.cached"), Profile(name: "A", age: 3, joined: Date(timeIntervalSince1970: 0)), store)

        // −0.0 keeps its sign bit through the inline words.
        let zero = DefaultsKey<Double>("negative.zero", default: 1)
        try store.set(-0.0, for: zero)
        _ = store[zero]
        #expect(store[zero].bitPattern == (-0.0 as Double).bitPattern)
    }

    /// Keys of different types on one row: each read decodes for its own type, never loads
    /// the bits another type left in the cache.
    @Test func oneRowReadAsSeveralTypes() throws {
        let store = try DefaultsStore(path: directory.database)
        let asInt = DefaultsKey<Int>("shared", default: 0)
        let asInt8 = DefaultsKey<Int8>("shared", default: 0)
        let asString = DefaultsKey<String>("shared", default: "")
        let asOptional = DefaultsKey<Int?>("shared")
        try store.set(300, for: asInt)
        for _ in 0..<2 {
            #expect(store[asInt] == 300)
            #expect(throws: DefaultsError.self) { try store.value(for: asInt8) }  // 300 does not fit
            #expect(store[asInt8] == 0)
            #expect(try store.value(for: asOptional) == 300)
            #expect(store[asInt] == 300)
            #expect(throws: DefaultsError.self) { try store.value(for: asString) }
        }
        try store.set(-5, for: asInt8)
        #expect(store[asInt] == -5)
        #expect(store[asInt8] == -5)
        #expect(store[asOptional] == -5)
    }

    /// "é" as one code point and as "e" plus a combining accent are equal Swift strings, but
    /// two rows for SQLite. The cache must not serve one for the other.
    @Test func canonicallyEquivalentNamesAreDistinctKeys() throws {
        let composed = DefaultsKey<Int>("caf\u{E9}", default: 0)
        let decomposed = DefaultsKey<Int>("cafe\u{301}", default: 0)
        #expect(composed.name == decomposed.name)  // what Swift says
        let store = try DefaultsStore(path: directory.database)
        try store.set(1, for: composed)
        try store.set(2, for: decomposed)
        for _ in 0..<2 {
            #expect(store[composed] == 1)
            #expect(store[decomposed] == 2)
        }
        #expect(try store.keys().count == 2)
        try store.remove(decomposed)
        #expect(store[composed] == 1)
        #expect(store[decomposed] == 0)
        let other = try DefaultsStore(path: directory.database)
        #expect(other[composed] == 1)
        #expect(other[decomposed] == 0)
    }

    /// The same two names, observed: each observer hears its own row only, from this store
    /// and from another one (the external path), in one transaction and apart.
    @Test func observersOfCanonicallyEquivalentNamesHearTheirOwnRow() async throws {
        let composed = DefaultsKey<Int>("caf\u{E9}", default: 0)
        let decomposed = DefaultsKey<Int>("cafe\u{301}", default: 0)
        let store = try DefaultsStore(path: directory.database)
        let writer = try DefaultsStore(path: directory.database)
        let heardComposed = Collected<Int>(), heardDecomposed = Collected<Int>()
        let tokens = [
            store.observe(composed) { heardComposed.append($0.newValue) },
            store.observe(decomposed) { heardDecomposed.append($0.newValue) },
        ]
        try await store.transaction { transaction in
            try transaction.set(1, for: composed)
            try transaction.set(2, for: decomposed)
        }
        try await writer.set(3, for: decomposed)
        #expect(await heardDecomposed.waitAsync(count: 2))
        try await writer.set(4, for: composed)
        #expect(await heardComposed.waitAsync(count: 2))
        #expect(heardComposed.all == [1, 4])
        #expect(heardDecomposed.all == [2, 3])
        #expect(store[composed] == 4 && store[decomposed] == 3)
        tokens.forEach { $0.cancel() }
    }
}
