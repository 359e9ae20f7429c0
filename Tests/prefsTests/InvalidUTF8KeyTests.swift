#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// A key that is not valid UTF-8 (only a SQL client can write one) is named by its escaped
/// address, as `prefs list` shows it: `read`, `write` and `delete` reach that exact row.
@Suite("Keys that are not valid UTF-8", .offThePool, .requiresSQLiteShell)
struct InvalidUTF8KeyTests {
    /// A database with `seed` and the row `FF 6B 65 79` = 'v'.
    static func database(in directory: TemporaryDirectory) async throws -> String {
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "seed", "1"])
        try await SQLite3.run(database, "insert into defaults(key, value) values(cast(x'ff6b6579' as text), 'v')")
        return database
    }

    @Test("read, write and delete by the escaped address act on that row; a second delete exits 1 naming the key")
    func readWriteDelete() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let list = try await Prefs.succeed(["--db", database, "list"])
        #expect(list.contains(#"\x{FF}key"#), "\(list)")
        #expect(try await Prefs.succeed(["--db", database, "read", #"\x{FF}key"#]) == "v\n")
        try await Prefs.succeed(["--db", database, "write", #"\x{FF}key"#, "w"])
        #expect(try await SQLite3.run(database, "select value from defaults where key = cast(x'ff6b6579' as text)") == "w\n")
        #expect(try await SQLite3.run(database, "select count(*) from defaults") == "2\n", "no second key was created")
        try await Prefs.succeed(["--db", database, "delete", #"\x{FF}key"#])
        #expect(try await SQLite3.run(database, "select count(*) from defaults where key = cast(x'ff6b6579' as text)") == "0\n")
        let line = try await Prefs.fail(["--db", database, "delete", #"\x{FF}key"#])
        #expect(line.contains(#"x{FF}key"#), "\(line)")
    }

    @Test("Text that is no such escape names itself: a key with a literal backslash")
    func literalBackslash() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        try await Prefs.succeed(["--db", database, "write", #"a\b"#, "x"])
        #expect(try await Prefs.succeed(["--db", database, "read", #"a\b"#]) == "x\n")
        try await Prefs.succeed(["--db", database, "delete", #"a\b"#])
        #expect(try await SQLite3.run(database, "select count(*) from defaults where key = cast(x'ff6b6579' as text)") == "1\n")
    }
}
#endif
