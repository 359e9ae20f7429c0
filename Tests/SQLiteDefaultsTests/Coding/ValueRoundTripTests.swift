import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

enum Theme: String, Sendable { case light, dark }
enum Level: Int, Sendable { case low = 1, high = 2 }
enum Mode: String, Codable, Sendable { case fast, safe }  // RawRepresentable and Codable: raw value wins
struct Profile: Codable, Equatable, Sendable { var name: String; var age: Int; var joined: Date }
struct Celsius: DefaultsSerializable, Equatable {
    var degrees: Double
    func sqliteValue() throws -> SQLiteValue { .real(degrees) }
    init(degrees: Double) { self.degrees = degrees }
    init(sqliteValue: SQLiteValue) throws { degrees = try Double(sqliteValue: sqliteValue) }
}
enum Flavor: String, Sendable, DefaultsSerializable { case vanilla, mint }  // one-line conformance

extension DefaultsKeys {
    static let name = DefaultsKey<String>("name", default: "Guest")
    static let count = DefaultsKey<Int>("count", default: 0)
    static let theme = DefaultsKey<Theme>("theme", default: .light)
    static let recent = DefaultsKey<[URL]>("recent", default: [])
    static let profile = DefaultsKey<Profile?>("profile")
}

/// Writes `value` under a fresh key, reopens the file, and reads it back.
func roundTrip<Value: Sendable>(_ key: DefaultsKey<Value>, _ value: Value, in directory: TemporaryDirectory) throws -> Value {
    do {
        let store = try DefaultsStore(path: directory.database)
        try store.set(value, for: key)
        #expect(try store.value(for: key) as Value? != nil)
    }
    let reopened = try DefaultsStore(path: directory.database)
    return try reopened.value(for: key)
}

@Suite("Value round trips across closing and reopening", .offThePool, .requiresSQLiteShell)
struct ValueRoundTripTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func integersOfEveryWidth() throws {
        #expect(try roundTrip(DefaultsKey<Int>("i", default: 0), Int.min, in: directory) == Int.min)
        #expect(try roundTrip(DefaultsKey<Int8>("i8", default: 0), Int8.min, in: directory) == Int8.min)
        #expect(try roundTrip(DefaultsKey<Int16>("i16", default: 0), Int16.max, in: directory) == Int16.max)
        #expect(try roundTrip(DefaultsKey<Int32>("i32", default: 0), Int32.min, in: directory) == Int32.min)
        #expect(try roundTrip(DefaultsKey<Int64>("i64", default: 0), Int64.max, in: directory) == Int64.max)
        #expect(try roundTrip(DefaultsKey<UInt8>("u8", default: 0), UInt8.max, in: directory) == UInt8.max)
        #expect(try roundTrip(DefaultsKey<UInt16>("u16", default: 0), UInt16.max, in: directory) == UInt16.max)
        #expect(try roundTrip(DefaultsKey<UInt32>("u32", default: 0), UInt32.max, in: directory) == UInt32.max)
        #expect(try roundTrip(DefaultsKey<UInt>("u", default: 0), UInt.max, in: directory) == UInt.max)
    }

    @Test(arguments: [UInt64.min, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max - 1, UInt64.max])
    func everyUInt64(_ value: UInt64) throws {
        #expect(try roundTrip(DefaultsKey<UInt64>("u64", default: 7), value, in: directory) == value)
    }

    @Test func floatingPointAndBool() throws {
        #expect(try roundTrip(DefaultsKey<Double>("d", default: 0), 0.1 + 0.2, in: directory) == 0.1 + 0.2)
        #expect(try roundTrip(DefaultsKey<Double>("dmax", default: 0), .greatestFiniteMagnitude, in: directory) == .greatestFiniteMagnitude)
        #expect(try roundTrip(DefaultsKey<Double>("dinf", default: 0), -.infinity, in: directory) == -.infinity)
        #expect(try roundTrip(DefaultsKey<Float>("f", default: 0), Float.pi, in: directory) == Float.pi)
        #expect(try roundTrip(DefaultsKey<Bool>("b", default: false), true, in: directory) == true)
        #expect(try roundTrip(DefaultsKey<Bool>("b2", default: true), false, in: directory) == false)
    }

    @Test func textDataURLUUID() throws {
        let text = "héllo 👋 \u{0} nul and \"quotes\"; DROP TABLE defaults;"
        #expect(try roundTrip(DefaultsKey<String>("s", default: ""), text, in: directory) == text)
        #expect(try roundTrip(DefaultsKey<String>("empty", default: "x"), "", in: directory) == "")
        let bytes = Data((0..<256).map { UInt8($0) })
        #expect(try roundTrip(DefaultsKey<Data>("data", default: Data()), bytes, in: directory) == bytes)
        #expect(try roundTrip(DefaultsKey<Data>("nodata", default: Data([1])), Data(), in: directory) == Data())
        let url = URL(string: "https://example.com/a%20b?q=1#frag")!
        #expect(try roundTrip(DefaultsKey<URL>("url", default: URL(fileURLWithPath: "/")), url, in: directory) == url)
        let file = URL(fileURLWithPath: "/tmp/some file.txt")
        #expect(try roundTrip(DefaultsKey<URL>("file", default: URL(fileURLWithPath: "/")), file, in: directory) == file)
        let uuid = UUID()
        #expect(try roundTrip(DefaultsKey<UUID>("uuid", default: UUID()), uuid, in: directory) == uuid)
    }

    @Test func datesToTheMillisecondOrBetter() throws {
        let millisecond = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(try roundTrip(DefaultsKey<Date>("ms", default: .distantPast), millisecond, in: directory) == millisecond)
        let now = Date()
        let back = try roundTrip(DefaultsKey<Date>("now", default: .distantPast), now, in: directory)
        #expect(abs(back.timeIntervalSince(now)) < 0.000_001)
        let old = Date(timeIntervalSince1970: -2_000_000_000.5)
        #expect(try roundTrip(DefaultsKey<Date>("old", default: .distantPast), old, in: directory) == old)
    }

    @Test func optionals() throws {
        #expect(try roundTrip(DefaultsKey<Int?>("oi"), 5, in: directory) == 5)
        #expect(try roundTrip(DefaultsKey<String?>("os"), "x", in: directory) == "x")
        #expect(try roundTrip(DefaultsKey<Int?>("onil", default: 3), nil, in: directory) == 3)  // nil removes: default again
        let profile = Profile(name: "Ada", age: 36, joined: Date(timeIntervalSince1970: 1_000.25))
        #expect(try roundTrip(.profile, profile, in: directory) == profile)
        #expect(try roundTrip(DefaultsKey<Theme?>("otheme"), .dark, in: directory) == .dark)
    }

    @Test func collections() throws {
        let urls = [URL(string: "https://a.example")!, URL(fileURLWithPath: "/b c")]
        #expect(try roundTrip(.recent, urls, in: directory) == urls)
        #expect(try roundTrip(DefaultsKey<[Int]>("ints", default: []), [1, -2, 3], in: directory) == [1, -2, 3])
        #expect(try roundTrip(DefaultsKey<[UInt64]>("bigs", default: []), [UInt64.max, 0], in: directory) == [UInt64.max, 0])
        #expect(try roundTrip(DefaultsKey<Set<String>>("set", default: []), ["a", "b", "c"], in: directory) == ["a", "b", "c"])
        let dictionary: [String: Double] = ["x": 1.5, "y.z": -2, "ü": 0]
        #expect(try roundTrip(DefaultsKey<[String: Double]>("dict", default: [:]), dictionary, in: directory) == dictionary)
        let nested: [String: [Int]] = ["a": [1, 2], "b": []]
        #expect(try roundTrip(DefaultsKey<[String: [Int]]>("nested", default: [:]), nested, in: directory) == nested)
        let dates = [Date(timeIntervalSince1970: 1.5), Date(timeIntervalSince1970: 1_700_000_000.001)]
        #expect(try roundTrip(DefaultsKey<[Date]>("dates", default: []), dates, in: directory) == dates)
        let blobs = [Data([0, 1, 2]), Data()]
        #expect(try roundTrip(DefaultsKey<[Data]>("blobs", default: []), blobs, in: directory) == blobs)
        #expect(try roundTrip(DefaultsKey<[Bool]>("bools", default: []), [true, false], in: directory) == [true, false])
        #expect(try roundTrip(DefaultsKey<[Flavor]>("flavors", default: []), [.mint, .vanilla], in: directory) == [.mint, .vanilla])
        #expect(try roundTrip(DefaultsKey<[Celsius]>("temps", default: []), [Celsius(degrees: 21.5)], in: directory) == [Celsius(degrees: 21.5)])
        #expect(try roundTrip(DefaultsKey<[Int]?>("oints"), [4], in: directory) == [4])
    }

    @Test func rawRepresentableCodableAndCustom() throws {
        #expect(try roundTrip(.theme, .dark, in: directory) == .dark)
        #expect(try roundTrip(DefaultsKey<Level>("level", default: .low), .high, in: directory) == .high)
        #expect(try roundTrip(DefaultsKey<Mode>("mode", default: .fast), .safe, in: directory) == .safe)
        #expect(try roundTrip(DefaultsKey<Flavor>("flavor", default: .vanilla), .mint, in: directory) == .mint)
        #expect(try roundTrip(DefaultsKey<Celsius>("temp", default: Celsius(degrees: 0)), Celsius(degrees: -40), in: directory) == Celsius(degrees: -40))
        let profiles = [Profile(name: "A", age: 1, joined: Date(timeIntervalSince1970: 0))]
        #expect(try roundTrip(DefaultsKey<[Profile]>("profiles", default: []), profiles, in: directory) == profiles)
    }

    @Test func defaultsAndRemoval() throws {
        let store = try DefaultsStore(path: directory.database)
        #expect(store[.name] == "Guest")
        #expect(store[.profile] == nil)
        #expect(!store.contains(.name))
        store[.name] = "Ada"
        #expect(store[.name] == "Ada")
        #expect(store.contains(.name))
        #expect(try store.keys() == ["name"])
        try store.remove(.name)
        #expect(store[.name] == "Guest")
        #expect(!store.contains(.name))
        #expect(try store.keys().isEmpty)
        try store.remove(.name)  // removing a missing key is fine
        store[.profile] = Profile(name: "B", age: 2, joined: Date(timeIntervalSince1970: 5))
        #expect(store.contains(.profile))
        store[.profile] = nil
        #expect(!store.contains(.profile))
        #expect(store[.profile] == nil)
    }

    @Test func keyNamesAreOrdinaryCharacters() async throws {
        let store = try DefaultsStore(path: directory.database)
        let names = ["app.window.width", "user@example.com", "with space", "ünïcødé 🔑", "'; DROP TABLE defaults; --", "a\"b", "%_*", "tab\tnew\nline"]
        for (index, name) in names.enumerated() {
            try await store.set(index, for: DefaultsKey<Int>(name, default: -1))
        }
        let reopened = try DefaultsStore(path: directory.database)
        for (index, name) in names.enumerated() {
            #expect(try reopened.value(for: DefaultsKey<Int>(name, default: -1)) == index)
        }
        await #expect(Set(try reopened.keys()) == Set(names))
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults") == "\(names.count)")
    }
}
