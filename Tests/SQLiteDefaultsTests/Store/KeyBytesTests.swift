import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Rows named by their key's exact bytes: a key that is not valid UTF-8 (only another client can
/// write one) is read, changed and removed, and a valid key spelled like its lossy name is untouched.
@Suite("Rows by key bytes", .offThePool, .requiresSQLiteShell)
struct KeyBytesTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test("value, replaceValue and removeValue(forKeyBytes:) act on that row alone; a missing row says false and creates nothing")
    func byBytes() async throws {
        let store = try DefaultsStore(path: directory.database)
        let lossy = DefaultsKey<SQLiteValue?>("\u{FFFD}key")
        try await store.set(.integer(1), for: lossy)
        try await sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES (CAST(x'ff6b6579' AS TEXT), 'v')")
        let bytes = Data([0xFF, 0x6B, 0x65, 0x79])
        #expect(try store.value(forKeyBytes: bytes) == .text("v"))
        await #expect(try store.replaceValue(.text("w"), forKeyBytes: bytes))
        #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = CAST(x'ff6b6579' AS TEXT)") == "w")
        #expect(try store.value(for: lossy) == .integer(1), "the valid key spelled like the lossy name keeps its value")
        await #expect(try store.removeValue(forKeyBytes: bytes))
        await #expect(try !store.removeValue(forKeyBytes: bytes))
        await #expect(try !store.replaceValue(.text("x"), forKeyBytes: bytes))
        #expect(try store.value(forKeyBytes: bytes) == nil)
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults") == "1")
        #expect(try store.value(for: lossy) == .integer(1))
        #expect(try store.value(forKeyBytes: Data("\u{FFFD}key".utf8)) == .integer(1), "a valid key's bytes name it too")
        #expect(throws: DefaultsError.self) { try store.replaceValue(.null, forKeyBytes: bytes) }
    }

    @Test("replaceValue(forKeyBytes:) keeps a declaration of those bytes: json refuses text that is not JSON, a secret's entry is sealed")
    func byBytesKeepsTheDeclaration() async throws {
        let store = try DefaultsStore(path: directory.database)
        try await store.set(1, for: DefaultsKey<Int>("other", default: 0))
        try await sqlite3(directory.database, """
            INSERT INTO defaults_schema(key, type) VALUES (CAST(x'ff6a' AS TEXT), 'json');
            INSERT INTO defaults_schema(key, type, secret) VALUES (CAST(x'ff73' AS TEXT), 'string', 1);
            INSERT INTO defaults(key, value) VALUES (CAST(x'ff6a' AS TEXT), '[1]'), (CAST(x'ff73' AS TEXT), 'shell');
            """)
        let json = Data([0xFF, 0x6A]), secret = Data([0xFF, 0x73])
        let refused = await #expect(throws: DefaultsError.self) { try await store.replaceValue(.text("[1,"), forKeyBytes: json) }
        #expect(refused?.code == .declarationConflict && refused?.message.contains("is json, so a value that is not valid JSON is refused") == true)
        #expect(try store.value(forKeyBytes: json) == .text("[1]"))
        await #expect(try store.replaceValue(.text("[2]"), forKeyBytes: json))
        await #expect(try store.replaceValue(.text("sk-6666"), forKeyBytes: secret))
        let sealed = try await sqlite3(directory.database,
            "SELECT count(*) FROM defaults_changes WHERE key = CAST(x'ff73' AS TEXT) AND secret = 1 AND sealed IS NOT NULL AND value IS NULL")
        #expect(sealed == "1", "the store's entry is sealed; the shell's is masked and unsealed")
    }
}
