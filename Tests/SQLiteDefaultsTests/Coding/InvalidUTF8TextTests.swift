import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Synchronization
import Testing
import TestScheduling

/// TEXT that another client wrote as bytes that are not valid UTF-8: kept byte for byte,
/// never replaced with U+FFFD, and rows whose key is such bytes can still be removed.
@Suite("TEXT that is not valid UTF-8", .offThePool, .requiresSQLiteShell)
struct InvalidUTF8TextTests {
    private let raw = DefaultsKey<SQLiteValue?>("k")

    @Test("reads as .invalidUTF8Text with its exact bytes; writing it back stores the same TEXT")
    func keptByteForByte() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        store[DefaultsKey<String>("plain", default: "")] = "x"
        try await sqlite3(directory.database, "insert into defaults(key, value) values('k', cast(x'61FF62' as text));")

        let value = try store.value(for: raw)
        #expect(value == .invalidUTF8Text(Data([0x61, 0xFF, 0x62])))
        #expect(value?.storageClass == "text")
        await #expect(try store.entries().first { $0.key == "k" }?.value == .invalidUTF8Text(Data([0x61, 0xFF, 0x62])))

        try await store.set(value, for: DefaultsKey<SQLiteValue?>("copy"))
        #expect(try await sqlite3(directory.database, "select typeof(value), hex(value) from defaults where key = 'copy';") == "text|61FF62")
    }

    @Test("a typed String read throws .decodingFailed naming the key; valid TEXT still reads as .text")
    func typedReadRefuses() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        store[DefaultsKey<String>("plain", default: "")] = "héllo"
        try await sqlite3(directory.database, "insert into defaults(key, value) values('k', cast(x'61FF62' as text));")
        let error = #expect(throws: DefaultsError.self) { try store.value(for: DefaultsKey<String>("k", default: "")) }
        #expect(error?.code == .decodingFailed)
        #expect(error?.key == "k")
        #expect(try store.value(for: DefaultsKey<SQLiteValue?>("plain")) == .text("héllo"))
    }

    @Test("removeAll removes every row in one transaction, a key that is not valid UTF-8 included, and observers hear each key")
    func removeAllRemovesEveryRow() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        store[DefaultsKey<Int>("a", default: 0)] = 1
        store[DefaultsKey<Int>("b", default: 0)] = 2
        try await sqlite3(directory.database, "insert into defaults(key, value) values(cast(x'6BFF' as text), 3);")
        #expect(try store.keysNotValidUTF8() == [Data([0x6B, 0xFF])])

        let heard = Collected<String>()
        let observation = store.observe { change in
            if change.newValue == nil { heard.append(change.key) }
        }
        defer { observation.cancel() }
        try await store.removeAll()
        #expect(try await sqlite3(directory.database, "select count(*) from defaults;") == "0")
        #expect(try store.keysNotValidUTF8().isEmpty)
        #expect(try await store.keys().isEmpty)
        #expect(await heard.waitAsync { Set($0).isSuperset(of: ["a", "b"]) && $0.count == 3 }, "heard \(heard.all)")
    }
}
