import DefaultsTestSupport
import Foundation
import PropertyBased
import SQLiteDefaults
import Testing
import TestScheduling

/// Keys that look like SQL: quotes, semicolons, comments, LIKE wildcards, NUL, and more.
let hostileKeys: [String] = [
    "'", "''", "\"", "`", ";", "--", "/*", "*/", "%", "_", "\\", "?", "?1", ":name", "@name", "$name",
    "'; DROP TABLE defaults; --",
    "Robert'); DROP TABLE defaults;--",
    "\" OR 1=1 --",
    "x' OR '1'='1",
    "key'); DELETE FROM defaults_changes; INSERT INTO defaults(key, value) VALUES ('pwned', 1); --",
    "a\u{0}b", "\u{0}", "trailing\u{0}",
    "ATTACH DATABASE '/tmp/pwned.sqlite' AS pwned; --",
    "PRAGMA writable_schema = ON;",
    "naïve ключ 鍵 🔑", "line\nbreak", "tab\there", "\r\n",
    String(repeating: "'", count: 1_000),
    String(repeating: "long;", count: 20_000),
]

@Suite("Security", .offThePool, .requiresSQLiteShell)
struct SecurityTests {
    @Test func hostileKeysAndValuesAreOnlyData() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let observed = Collected<String>()
        let token = store.observe { observed.append($0.key) }
        for (index, key) in hostileKeys.enumerated() {
            try await store.set(key, for: DefaultsKey<String>(key, default: ""))           // the value is SQL too
            try await store.modify(DefaultsKey<Int>(key + "#count", default: 0)) { $0 += index }
        }
        let expected = Set(hostileKeys + hostileKeys.map { $0 + "#count" })
        await #expect(Set(try store.keys()) == expected)
        await #expect(try store.keys().count == expected.count)
        for key in hostileKeys {
            #expect(store[DefaultsKey<String>(key, default: "missing")] == key)
            #expect(store.contains(DefaultsKey<String>(key, default: "")))
        }
        #expect(await observed.waitAsync(count: expected.count))
        #expect(Set(observed.all) == expected)

        // A second store (no cache) and the sqlite3 shell see exactly these bytes, and the
        // schema is as it was: two tables, three triggers, nothing dropped, nothing attached.
        let fresh = try DefaultsStore(path: directory.database, configuration: quietConfiguration())
        for key in hostileKeys {
            #expect(fresh[DefaultsKey<String>(key, default: "missing")] == key)
        }
        let hexKeys = try await sqlite3(directory.database, "SELECT hex(key) FROM defaults ORDER BY key")
            .split(separator: "\n").map(String.init)
        #expect(Set(hexKeys) == Set(expected.map { hex(Array($0.utf8)).uppercased() }))
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults") == "\(expected.count)")
        let schema = try await sqlite3(directory.database, "SELECT type || ' ' || name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name NOT LIKE 'sqlite_%'")
            .split(separator: "\n").map(String.init)
        #expect(Set(schema).isSuperset(of: ["table defaults", "table defaults_changes", "trigger defaults_log_insert",
                                            "trigger defaults_log_update", "trigger defaults_log_delete"]), "\(schema)")
        #expect(schema.allSatisfy { $0.contains(" defaults") }, "\(schema)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/pwned.sqlite"))

        for key in hostileKeys { try await store.remove(DefaultsKey<String>(key, default: "")) }
        await #expect(Set(try store.keys()) == Set(hostileKeys.map { $0 + "#count" }))
        _ = token
    }

    /// Keys written with raw SQL by another client (quotes escaped the SQL way) reach
    /// observers under exactly their names.
    @Test func hostileKeysFromTheShellAreObservedByName() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let keys = hostileKeys.filter { !$0.contains("\u{0}") && !$0.contains("\r") && $0.count < 500 }  // the shell strips CR from its input
        let observed = Collected<String>()
        let tokens = keys.map { key in
            store.observe(DefaultsKey<String>(key, default: "")) { change in observed.append(change.key + "=" + change.newValue) }
        }
        let values = keys.map { "('\($0.replacingOccurrences(of: "'", with: "''"))', 'v')" }
        try await sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES \(values.joined(separator: ","));")
        #expect(await observed.waitAsync(count: keys.count))
        let missing = Set(keys.map { $0 + "=v" }).subtracting(observed.all)
        #expect(missing.isEmpty, "not observed: \(missing.map { $0.debugDescription })")
        #expect(observed.count == keys.count, "\(observed.all)")
        _ = tokens
    }

    @Test func randomKeysRoundTripExactly() async throws {
        let store = try DefaultsStore.inMemory()
        let scalar = Generator<Character, Shrink.None<Character>> { rng in
            let pool: [Character] = ["'", "\"", ";", "-", "/", "*", "%", "_", "\\", "\u{0}", " ", "\n", "é", "🔑", "a", "Z", "0"]
            if Bool.random(using: &rng) { return pool.randomElement(using: &rng)! }
            return Character(Unicode.Scalar(UInt32.random(in: 1...0xD7FF, using: &rng))!)
        }
        let tried = Collected<Int>()
        await propertyCheck(count: 300, input: scalar.array(of: 1...40).map { String($0) }) { key in
            let typed = DefaultsKey<String>(key, default: "")
            try store.set("value of " + key, for: typed)
            #expect(try store.keys().contains(key))
            #expect(try store.value(for: DefaultsKey<SQLiteValue?>(key)) == .text("value of " + key))
            try store.remove(typed)
            #expect(!store.contains(typed))
            tried.append(1)
        }
        #expect(try await store.keys().isEmpty)
        reportFigure("security: \(hostileKeys.count) hostile keys and \(tried.count) random keys round-tripped as data")
    }

    /// The database, -wal and -shm are 0600 and created directories 0700, even when the
    /// process umask would allow everyone everything.
    @Test func filesArePrivateEvenUnderUmaskZero() async throws {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.path + "/config"
        let child = try HelperProcess(builtExecutable("ReliabilityHelper"), ["standard", "privateapp"], environment: environment)
        defer { child.kill() }
        let path = try #require(await child.waitForLine { $0.hasSuffix("defaults.sqlite") }, "\(child.errorOutput)")
        #expect(path == directory.path + "/config/privateapp/defaults.sqlite")
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(try permissions(file) == 0o600, "\(file)")
        }
        #expect(try permissions(directory.path + "/config/privateapp") == 0o700)
        #expect(try permissions(directory.path + "/config") == 0o700)
        child.send("quit")
        await child.waitForExit()
    }

    @Test(arguments: ["/", "a/b", "../x", "..", ".", "x/../y", "/etc/passwd", "../../../../tmp/evil", "a/", "..\u{0}", "app\u{0}/../x"])
    func standardRefusesAnythingButOneComponent(name: String) throws {
        let pathError = #expect(throws: DefaultsError.self) { try DefaultsStore.standardPath(name: name) }
        #expect(pathError?.code == .invalidName)
        let openError = #expect(throws: DefaultsError.self) { try DefaultsStore.standard(name: name) }
        #expect(openError?.code == .invalidName)
    }

    @Test(arguments: ["...", "a..b", "..app", "my app", "ünïcode"])
    func standardAcceptsOddButSingleComponents(name: String) throws {
        let path = try DefaultsStore.standardPath(name: name)
        #expect(path.hasSuffix("/" + name + "/defaults.sqlite"))
        #expect(!path.dropLast("/defaults.sqlite".count).dropLast(name.count).contains("/../"))
    }

    /// The path is a file name, never a SQLite URI or the name of an in-memory database: a
    /// relative path that SQLite would read as `file:` URI (this system's SQLite is built
    /// with SQLITE_USE_URI) or as ":memory:" must still be that file in the current directory.
    @Test(arguments: ["file:prefs.sqlite", "file:prefs.sqlite?mode=memory", "file:prefs.sqlite?nolock=1", ":memory:", "file::memory:"])
    func relativePathsAreFilesNotURIs(path: String) async throws {
        let directory = try TemporaryDirectory()
        let child = try HelperProcess(builtExecutable("ReliabilityHelper"), ["open-relative", path], directory: directory.path)
        #expect(await child.waitForExit())
        #expect(child.terminationStatus == 0, "\(child.errorOutput)")
        let file = directory.path + "/" + path
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(try await sqlite3(file, "SELECT value FROM defaults WHERE key = 'where'") == "on disk", "the value did not reach the file named \(path)")
    }
}
