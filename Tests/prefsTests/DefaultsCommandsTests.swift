#if Prefs
import Foundation
import SQLiteDefaults
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
import TestScheduling
#endif

/// The commands that make `prefs` a complete `defaults(1)`: --version, domains, read-type,
/// rename, delete --all, export FILE, PREFS_DB, and the shell completion scripts.
@Suite("prefs completes defaults(1)", .offThePool, .requiresSQLiteShell)
struct DefaultsCommandsTests {
    @Test("--version prints the version and the SQLite it runs on, and exits 0")
    func version() async throws {
        let output = try await Prefs.succeed(["--version"])
        #expect(output.wholeMatch(of: /prefs 1\.0\.0 \(SQLite \d+\.\d+\.\d+\)\n/) != nil, "unexpected version: \(output)")
        // The library it loaded: this process and the child run on the same libsqlite3.so.0.
        #expect(output.contains("(SQLite \(SQLiteLibrary.version))"), "\(output)")
    }

    @Test("domains lists, sorted, the apps with a defaults.sqlite under $XDG_CONFIG_HOME")
    func domains() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path("config")
        let environment = ["XDG_CONFIG_HOME": config]
        // None yet (the directory does not even exist): no output, status 0.
        #expect(try await Prefs.succeed(["domains"], environment: environment) == "")

        for app in ["zeta", "alpha", "my app"] {
            try await Prefs.succeed(["--name", app, "write", "k", "v"], environment: environment)
        }
        try FileManager.default.createDirectory(atPath: config + "/no-database", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: config + "/a-directory/defaults.sqlite", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: config + "/plain-file", contents: Data("x".utf8))
        #expect(try await Prefs.succeed(["domains"], environment: environment) == "alpha\nmy app\nzeta\n")
    }

    @Test("domains falls back to ~/.config when XDG_CONFIG_HOME is not an absolute path")
    func domainsFallback() async throws {
        let directory = try TemporaryDirectory()
        let home = directory.path("home")
        try await Prefs.succeed(["--db", home + "/.config/fromhome/defaults.sqlite", "write", "k", "v"])
        let environment = ["HOME": home, "XDG_CONFIG_HOME": "relative/config"]
        #expect(try await Prefs.succeed(["domains"], environment: environment) == "fromhome\n")
    }

    @Test("read-type prints the storage class as typeof() names it; a missing key exits 1 naming it")
    func readType() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        let cases = [("int", "42", "integer"), ("double", "0.5", "real"), ("string", "x", "text"),
                     ("json", "[1]", "text"), ("data", "AAE=", "blob"), ("bool", "yes", "integer"), ("date", "now", "real")]
        for (type, value, _) in cases {
            try await Prefs.succeed(["--db", database, "write", "key-\(type)", value, "--type", type])
        }
        for (type, _, storageClass) in cases {
            #expect(try await Prefs.succeed(["--db", database, "read-type", "key-\(type)"]) == storageClass + "\n")
        }
        let sqlite3 = try await SQLite3.run(database, "SELECT typeof(value) FROM defaults WHERE key = 'key-data';")
        #expect(sqlite3 == "blob\n")

        let line = try await Prefs.fail(["--db", database, "read-type", "nope"], status: 1)
        #expect(line == "prefs: no value for key 'nope'")
        try await Prefs.fail(["--db", directory.path("missing.sqlite"), "read-type", "k"], status: 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing.sqlite")))
    }

    @Test("rename moves the value with its storage class, in one transaction; a watcher hears both keys")
    func rename() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "old", "2", "--type", "double"])
        try await Prefs.succeed(["--db", database, "write", "other", "stays"])

        let watcher = try await Watcher.start(["--db", database, "watch", "old", "new", "--json"])
        try await Prefs.succeed(["--db", database, "rename", "old", "new"])
        let removed = await watcher.output.wait { $0.contains(#""key":"old""#) }
        let set = await watcher.output.wait { $0.contains(#""key":"new""#) }
        #expect(try jsonObject(try #require(removed))["value"] is NSNull)
        #expect(try #require(set).contains(#""value":2.0"#))
        let outcome = try await watcher.stop()
        #expect(outcome.succeeded)
        #expect(watcher.output.all.count == 2, "one line per key: \(watcher.output.all)")

        #expect(try storedRows(database) == ["new": .real(2), "other": .text("stays")])
    }

    @Test("rename refuses an existing NEW unless --force, and a missing OLD exits 1 naming it")
    func renameRefusals() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "a", "1", "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", "b", "AAE=", "--type", "data"])

        let refused = try await Prefs.fail(["--db", database, "rename", "b", "a"])
        #expect(refused == "prefs: key 'a' already has a value; use --force to replace it")
        #expect(try storedRows(database) == ["a": .integer(1), "b": .blob(Data([0, 1]))])

        try await Prefs.succeed(["--db", database, "rename", "b", "a", "--force"])
        #expect(try storedRows(database) == ["a": .blob(Data([0, 1]))])

        let missing = try await Prefs.fail(["--db", database, "rename", "gone", "c"], status: 1)
        #expect(missing == "prefs: no value for key 'gone'")
        try await Prefs.fail(["--db", directory.path("missing.sqlite"), "rename", "x", "y"], status: 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing.sqlite")))
    }

    @Test("delete --all removes every key in one transaction; observers hear each key once")
    func deleteAll() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        for key in ["a", "b", "c"] {
            try await Prefs.succeed(["--db", database, "write", key, key])
        }
        let watcher = try await Watcher.start(["--db", database, "watch"])
        try await Prefs.succeed(["--db", database, "delete", "--all"])
        for key in ["a", "b", "c"] {
            #expect(await watcher.output.wait { $0.contains(" \(key) removed") } != nil, "no removal of \(key): \(watcher.output.all)")
        }
        _ = try await watcher.stop()
        #expect(watcher.output.all.count == 3)
        #expect(try storedRows(database).isEmpty)

        // Already empty, or no database at all: nothing to do, status 0, no file created.
        try await Prefs.succeed(["--db", database, "delete", "--all"])
        try await Prefs.succeed(["--db", directory.path("missing.sqlite"), "delete", "--all"])
        #expect(!FileManager.default.fileExists(atPath: directory.path("missing.sqlite")))
    }

    @Test("delete needs a key or --all, not both")
    func deleteUsage() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "k", "v"])
        let neither = try await Prefs.fail(["--db", database, "delete"])
        #expect(neither.contains("--all"))
        let both = try await Prefs.fail(["--db", database, "delete", "k", "--all"])
        #expect(both.contains("not both"))
        #expect(try storedRows(database) == ["k": .text("v")])
    }

    @Test("export FILE writes the JSON there, replacing the file whole; export - and no FILE print it")
    func exportToFile() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "n", "42", "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", "t", "text"])
        let printed = try await Prefs.succeed(["--db", database, "export"])
        #expect(try await Prefs.succeed(["--db", database, "export", "-"]) == printed)

        // A new file is readable by its owner only, like the database.
        let fresh = directory.path("fresh.json")
        #expect(try await Prefs.succeed(["--db", database, "export", fresh]) == "")
        #expect((try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        // An existing file is replaced whole and keeps the permissions its owner gave it.
        let file = directory.path("backup.json")
        _ = FileManager.default.createFile(atPath: file, contents: Data("old content that is longer than the export itself...".utf8))
        chmod(file, 0o640)
        #expect(try await Prefs.succeed(["--db", database, "export", file]) == "")
        #expect(String(decoding: try #require(FileManager.default.contents(atPath: file)), as: UTF8.self) == printed)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o640)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")

        // The file round-trips through import.
        let copy = directory.path("copy.sqlite")
        #expect(try await Prefs.succeed(["--db", copy, "import", file]) == "imported 2 keys\n")
        #expect(try storedRows(copy) == ["n": .integer(42), "t": .text("text")])
    }

    @Test("export to a file it cannot write fails with one line and leaves nothing behind")
    func exportFailure() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "write", "k", "v"])
        let line = try await Prefs.fail(["--db", database, "export", directory.path("no/such/dir/out.json")])
        #expect(line.hasPrefix("prefs: \(directory.path("no/such/dir/out.json")): cannot write"))
        try FileManager.default.createDirectory(atPath: directory.path("taken"), withIntermediateDirectories: true)
        try await Prefs.fail(["--db", database, "export", directory.path("taken")])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test("PREFS_DB names the database when neither --db nor --name does; writes then print no note")
    func prefsDBEnvironment() async throws {
        let directory = try TemporaryDirectory()
        let fromEnvironment = directory.path("env.sqlite")
        let config = directory.path("config")
        let environment = ["PREFS_DB": fromEnvironment, "XDG_CONFIG_HOME": config]
        try await Prefs.succeed(["write", "k", "env"], environment: environment)
        #expect(try storedRows(fromEnvironment) == ["k": .text("env")])
        #expect(try await Prefs.succeed(["read", "k"], environment: environment) == "env\n")

        // --db and --name win over PREFS_DB.
        let explicit = directory.path("explicit.sqlite")
        try await Prefs.succeed(["--db", explicit, "write", "k", "db"], environment: environment)
        try await Prefs.succeed(["--name", "app", "write", "k", "name"], environment: environment)
        #expect(try storedRows(explicit) == ["k": .text("db")])
        #expect(try storedRows(config + "/app/defaults.sqlite") == ["k": .text("name")])
        #expect(try storedRows(fromEnvironment) == ["k": .text("env")])
        #expect(!FileManager.default.fileExists(atPath: config + "/prefs/defaults.sqlite"))
    }

    @Test("with no database named, write, delete, rename and import say which file on stderr; reads do not")
    func fallbackNote() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path("config")
        let environment = ["XDG_CONFIG_HOME": config]
        let note = "prefs: using \(config)/prefs/defaults.sqlite\n"
        let file = directory.path("in.json")
        _ = FileManager.default.createFile(atPath: file, contents: Data(#"{"i": 1}"#.utf8))

        for arguments in [["write", "a", "1"], ["rename", "a", "b"], ["import", file], ["delete", "b"], ["delete", "--all"]] {
            let result = try await Prefs.run(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.stderr == note, "\(arguments): \(result)")
            #expect(!result.stdout.contains("using"), "\(arguments): \(result)")
        }
        // Naming a database, any way, silences the note.
        try await Prefs.succeed(["write", "k", "v", "--db", directory.path("other.sqlite")], environment: environment)
        try await Prefs.succeed(["--name", "prefs", "write", "r", "1", "--type", "int"], environment: environment)
        // Reads never print it: their standard output stays clean and standard error empty.
        #expect(try await Prefs.succeed(["read", "r"], environment: environment) == "1\n")
        #expect(try await Prefs.succeed(["read-type", "r"], environment: environment) == "integer\n")
        for arguments in [["list"], ["list", "--json"], ["export"], ["domains"]] {
            try await Prefs.succeed(arguments, environment: environment)
        }
    }

    @Test("swift-argument-parser's completion scripts are generated", arguments: ["bash", "zsh", "fish"])
    func completionScript(shell: String) async throws {
        let script = try await Prefs.succeed(["--generate-completion-script", shell])
        #expect(script.contains("prefs"))
        #expect(script.contains("rename"))
    }
}
#endif
