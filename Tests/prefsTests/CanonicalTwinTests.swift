#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// NFC "café" (63 61 66 C3 A9) and NFD "café" (63 61 66 65 CC 81) are equal Swift `String`s but
/// two rows to SQLite. Every command looks a key's declaration up by its bytes, so one twin's
/// declaration never speaks for the other (issue 46: repro 41 and 42).
@Suite("canonically equivalent keys are two keys", .offThePool, .requiresSQLiteShell)
struct CanonicalTwinTests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    @Test("the twins really are equal Strings and different bytes (the premise of every test here)")
    func premise() {
        #expect(Self.nfc == Self.nfd)
        #expect(Array(Self.nfc.utf8) != Array(Self.nfd.utf8))
    }

    @Test("list and list --json never print a secret key's value when its twin is declared plain")
    func listMasksTheSecretTwin() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "declare", Self.nfc, "--type", "string", "--secret"])
        try await Prefs.succeed(["--db", database, "write", Self.nfc, "s3cr3t-value"])
        try await Prefs.succeed(["--db", database, "declare", Self.nfd, "--type", "string"])
        try await Prefs.succeed(["--db", database, "write", Self.nfd, "plainvalue"])
        let text = try await Prefs.succeed(["--db", database, "list"])
        let json = try await Prefs.succeed(["--db", database, "list", "--json"])
        #expect(!text.contains("s3cr3t-value") && !json.contains("s3cr3t-value"), "\(text)\n\(json)")
        #expect(text.contains("plainvalue") && json.contains("plainvalue"), "the plain twin must still show: \(text)\n\(json)")
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0.contains("(secret)") && $0.contains("[declared string, secret]") }, "\(text)")
        #expect(lines.contains { $0.contains("plainvalue") && $0.contains("[declared string]") && !$0.contains("secret") }, "\(text)")
    }

    @Test("export writes an undeclared key whose twin is secret, and leaves out only the secret one")
    func exportKeepsTheUndeclaredTwin() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "declare", Self.nfc, "--type", "string", "--secret"])
        try await Prefs.succeed(["--db", database, "write", Self.nfc, "topsecret"])
        try await Prefs.succeed(["--db", database, "write", Self.nfd, "plainvalue"])
        let result = try await Prefs.run(["--db", database, "export"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("plainvalue") && !result.stdout.contains("topsecret"), "\(result)")
        #expect(result.stderr.contains("left out secret key") && !result.stderr.contains("2 secret keys"), "\(result)")
        // The backup restores the undeclared twin into a new file, byte for byte.
        let backup = directory.path("backup.json")
        try result.stdout.write(toFile: backup, atomically: true, encoding: .utf8)
        let restored = directory.path("restored.sqlite")
        _ = try await Prefs.run(["--db", restored, "import", backup])
        let keys = try await SQLite3.run(restored, "SELECT hex(key) || '=' || value FROM defaults ORDER BY key")
        #expect(keys.contains("63616665CC81=plainvalue"), "\(keys)")
    }

    @Test("describe KEY names the twin asked for, not the other one")
    func describeByBytes() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "declare", Self.nfc, "--type", "string", "--secret"])
        try await Prefs.succeed(["--db", database, "declare", Self.nfd, "--type", "int"])
        let nfd = try await Prefs.succeed(["--db", database, "describe", Self.nfd, "--json"])
        #expect(nfd.contains(#""type": "int""#) && !nfd.contains("secret"), "\(nfd)")
        let nfc = try await Prefs.succeed(["--db", database, "describe", Self.nfc, "--json"])
        #expect(nfc.contains(#""type": "string""#) && nfc.contains(#""secret": true"#), "\(nfc)")
    }

    @Test("history names a declared key's type on its own entries only, not on its twin's")
    func historyTypesByBytes() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "declare", Self.nfc, "--type", "int"])
        try await Prefs.succeed(["--db", database, "write", Self.nfc, "5"])
        try await Prefs.succeed(["--db", database, "write", Self.nfd, "plain"])
        let json = try await Prefs.succeed(["--db", database, "history", "--json"])
        let lines = json.split(separator: "\n").filter { $0.contains(#""key":"#) }
        let declared = lines.filter { $0.utf8.contains(0xA9) }   // C3 A9: the NFC twin
        let twin = lines.filter { $0.contains("plain") }
        #expect(declared.count == 1 && declared.allSatisfy { $0.contains(#""type":"int""#) }, "\(json)")
        #expect(twin.count == 1 && twin.allSatisfy { !$0.contains(#""type":"#) }, "\(json)")
        let text = try await Prefs.succeed(["--db", database, "history"])
        #expect(text.split(separator: "\n").contains { $0.contains("plain") && !$0.contains("[int]") }, "\(text)")
    }

    @Test("undeclare KEY refuses a key whose twin alone is declared, and leaves the twin declared")
    func undeclareByBytes() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "declare", Self.nfc, "--type", "int"])
        let result = try await Prefs.run(["--db", database, "undeclare", Self.nfd])
        #expect(result.status == 1 && result.stderr.contains("is not declared"), "\(result)")
        let kept = try await SQLite3.run(database, "SELECT hex(key) || ' ' || type FROM defaults_schema")
        #expect(kept.trimmingCharacters(in: .whitespacesAndNewlines) == "636166C3A9 int", "\(kept)")
    }

    @Test("watch KEY hears that key, not its twin")
    func watchFilterByBytes() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "seed", "1"])
        let watcher = try await Watcher.start(["--db", database, "watch", "--json", Self.nfd, "marker"])
        try await Prefs.succeed(["--db", database, "write", Self.nfc, "not-for-this-watcher"])
        try await Prefs.succeed(["--db", database, "write", Self.nfd, "heard"])
        try await Prefs.succeed(["--db", database, "write", "marker", "end"])
        #expect(await watcher.output.wait(timeout: .seconds(30)) { $0.contains(#""end""#) } != nil, "\(watcher.output.all)")
        #expect(watcher.output.all.contains { $0.contains("heard") }, "\(watcher.output.all)")
        #expect(!watcher.output.all.contains { $0.contains("not-for-this-watcher") }, "\(watcher.output.all)")
        _ = try await watcher.stop()
    }
}
#endif
