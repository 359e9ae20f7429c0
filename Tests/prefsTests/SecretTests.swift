#if Prefs
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// A key declared `--secret`: its value is printed by `read` and `export --include-secrets`
/// alone, and the file keeps it in the `defaults` row alone.
@Suite("prefs: secret keys", .offThePool, .requiresSQLiteShell)
struct SecretTests {
    static let plaintext = "s3cr3t-PLAINTEXT-token"
    static let older = "older-PLAINTEXT-token"

    /// A database with `api.token` declared secret and written twice, `older` then
    /// `plaintext`, and a plain key beside it.
    static func database(in directory: TemporaryDirectory) async throws -> String {
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "declare", "api.token", "--type", "string", "--secret", "--summary", "The upstream's token"])
        try await Prefs.succeed(["--db", database, "write", "api.token", older, "--reason", "first token"])
        try await Prefs.succeed(["--db", database, "write", "api.token", plaintext, "--reason", "rotated"])
        try await Prefs.succeed(["--db", database, "write", "plain", "visible"])
        return database
    }

    @Test("list, list --json, history, history --json, describe and export never print the value; read and export --include-secrets do")
    func everyOutputButReadMasksIt() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let masked: [[String]] = [
            ["list"], ["list", "--json"], ["list", "--declared"], ["history"], ["history", "--json"], ["history", "api.token"],
            ["describe"], ["describe", "--json"], ["describe", "api.token"],
        ]
        for arguments in masked {
            let output = try await Prefs.succeed(["--db", database] + arguments)
            #expect(!output.contains(Self.plaintext) && !output.contains(Self.older), "prefs \(arguments) printed the secret: \(output)")
            #expect(output.contains("visible") || arguments.first != "list", "\(arguments): \(output)")
        }
        let export = try await Prefs.run(["--db", database, "export"])
        #expect(export.status == 0)
        #expect(!export.stdout.contains(Self.plaintext) && !export.stdout.contains("api.token"), "\(export)")
        #expect(export.stdout.contains(#""plain": "visible""#))
        #expect(export.stderr == "prefs: note: left out secret key 'api.token'; --include-secrets exports it\n")

        #expect(try await Prefs.succeed(["--db", database, "read", "api.token"]) == Self.plaintext + "\n")
        #expect(try await Prefs.succeed(["--db", database, "export", "--include-secrets"]).contains(#""api.token": "\#(Self.plaintext)""#))

        // What the masked forms say instead.
        let list = try await Prefs.succeed(["--db", database, "list"])
        #expect(list.split(separator: "\n").contains { $0.hasPrefix("api.token") && $0.hasSuffix("(secret)  [declared string, secret]") }, "\(list)")
        let history = try await AttributionTests.history(database, ["api.token"])
        #expect(history.count == 2)
        for entry in history {
            #expect(entry["secret"] as? Bool == true, "\(entry)")
            #expect(entry["value"] is NSNull, "\(entry)")
            #expect((entry["digest"] as? String)?.wholeMatch(of: /[0-9a-f]{64}/) != nil, "\(entry)")
        }
        #expect(history[0]["digest"] as? String != history[1]["digest"] as? String, "different values, different digests")
        #expect(history[0]["reason"] as? String == "rotated")
        let text = try await Prefs.succeed(["--db", database, "history", "api.token"])
        #expect(text.split(separator: "\n").allSatisfy { $0.contains(" api.token [string] = (secret, digest ") }, "\(text)")
        let describe = try await Prefs.succeed(["--db", database, "describe", "api.token", "--json"])
        #expect(describe.contains(#""secret": true"#) && describe.contains(#""value": null"#), "\(describe)")
    }

    @Test("a secret declared with a default shows neither the default nor the value in describe or list --declared")
    func defaultIsMaskedToo() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("defaults.sqlite")
        try await Prefs.succeed(["--db", database, "declare", "pin", "--type", "int", "--default", "987654", "--secret"])
        for arguments in [["describe"], ["describe", "--json"], ["list", "--declared"]] {
            let output = try await Prefs.succeed(["--db", database] + arguments)
            #expect(!output.contains("987654"), "\(arguments): \(output)")
        }
        #expect(try await Prefs.succeed(["--db", database, "list", "--declared"]).contains("(secret default)"))
        #expect(try await Prefs.succeed(["--db", database, "read", "pin"]) == "987654\n")
    }

    @Test("watch and watch --json say that a secret changed, never to what", arguments: [true, false])
    func watchMasksIt(json: Bool) async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let watcher = try await Watcher.start(["--db", database, "watch"] + (json ? ["--json"] : []))
        try await Prefs.succeed(["--db", database, "write", "api.token", Self.plaintext + "-new"], environment: ["PREFS_ACTOR": "alice"])
        try await Prefs.succeed(["--db", database, "write", "marker", "done"])
        // Changes arrive in commit order: once the marker is printed, so is the secret's line.
        #expect(await watcher.output.wait { $0.contains("marker") } != nil, "\(watcher.output.all) \(watcher.errors.all)")
        _ = try await watcher.stop()
        let lines = watcher.output.all
        #expect(!lines.contains { $0.contains(Self.plaintext) }, "watch printed the secret: \(lines)")
        let line = try #require(lines.first { $0.contains("api.token") }, "\(lines)")
        if json {
            let object = try jsonObject(line)
            #expect(object["secret"] as? Bool == true && object["value"] is NSNull, "\(line)")
            #expect(object["actor"] as? String == "alice", "\(line)")
        } else {
            #expect(line.hasSuffix(" api.token = (secret) for alice"), "\(line)")
        }
    }

    @Test("export, then import: without --include-secrets the stored secret stays as it is; with it, it is restored")
    func exportImportRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let withoutSecrets = directory.path("plain.json"), withSecrets = directory.path("all.json")
        _ = try await Prefs.run(["--db", database, "export", withoutSecrets])
        try await Prefs.succeed(["--db", database, "export", "--include-secrets", withSecrets])
        #expect(try !String(contentsOfFile: withoutSecrets, encoding: .utf8).contains(Self.plaintext))

        let before = try await AttributionTests.history(database, ["api.token"]).count
        try await Prefs.succeed(["--db", database, "import", withoutSecrets])
        #expect(try await Prefs.succeed(["--db", database, "read", "api.token"]) == Self.plaintext + "\n")
        #expect(try await AttributionTests.history(database, ["api.token"]).count == before, "the secret was not written")

        try await Prefs.succeed(["--db", database, "write", "api.token", "changed-meanwhile"])
        try await Prefs.succeed(["--db", database, "import", withSecrets, "--reason", "restore"])
        #expect(try await Prefs.succeed(["--db", database, "read", "api.token"]) == Self.plaintext + "\n")
        let newest = try #require(try await AttributionTests.history(database, ["api.token"]).first)
        #expect(newest["secret"] as? Bool == true && newest["reason"] as? String == "restore", "\(newest)")
    }

    @Test("revert restores a secret's earlier value and prints nothing of it")
    func revertRestoresSilently() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let result = try await Prefs.run(["--db", database, "revert", "api.token", "--reason", "the new token is refused"])
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
        #expect(try await Prefs.succeed(["--db", database, "read", "api.token"]) == Self.older + "\n")
        let history = try await AttributionTests.history(database, ["api.token"])
        #expect(history.first?["secret"] as? Bool == true)
        #expect(history.first?["digest"] as? String == history.last?["digest"] as? String, "the same value as the first write")
    }

    @Test("rename of a secret key keeps it secret under the new name, its new history entry masked")
    func renameKeepsItSecret() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        try await Prefs.succeed(["--db", database, "rename", "api.token", "upstream.token", "--reason", "new name"])
        #expect(try await Prefs.succeed(["--db", database, "read", "upstream.token"]) == Self.plaintext + "\n")
        let describe = try await Prefs.succeed(["--db", database, "describe", "upstream.token"])
        #expect(describe.contains("secret   yes") && describe.contains("The upstream's token"), "\(describe)")
        let entry = try #require(try await AttributionTests.history(database, ["upstream.token"]).first)
        #expect(entry["secret"] as? Bool == true && entry["value"] is NSNull, "\(entry)")
        for arguments in [["history"], ["history", "--json"], ["list"], ["list", "--json"]] {
            let output = try await Prefs.succeed(["--db", database] + arguments)
            #expect(!output.contains(Self.plaintext), "\(arguments): \(output)")
        }
    }

    @Test("the file holds the value once, in its defaults row: sqlite3 .dump shows no other copy")
    func fileKeepsNoOtherPlaintext() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        try await Prefs.succeed(["--db", database, "rename", "api.token", "upstream.token"])
        try await Prefs.succeed(["--db", database, "write", "upstream.token", "third"])
        try await Prefs.succeed(["--db", database, "revert", "upstream.token"])  // back to the renamed value
        let dump = try await SQLite3.run(database, ".dump")
        #expect(dump.components(separatedBy: Self.plaintext).count - 1 == 1, "the plaintext appears more than once")
        #expect(!dump.contains(Self.older), "an overwritten secret is kept in plain text")
    }

    @Test("a refused declaration or write of a secret key does not repeat its value on standard error")
    func errorsDoNotRepeatIt() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let declare = try await Prefs.fail(["--db", database, "declare", "api.token", "--type", "int"])
        #expect(!declare.contains(Self.plaintext) && declare.contains("nothing was changed"), "\(declare)")
        try await Prefs.succeed(["--db", database, "declare", "pin", "--type", "string", "--allowed", "a,b", "--secret"])
        let write = try await Prefs.fail(["--db", database, "write", "pin", "typed-PLAINTEXT"])
        #expect(!write.contains("typed-PLAINTEXT") && write.contains("nothing was written"), "\(write)")
    }

    @Test("declaring again keeps a key secret; --no-secret and undeclare make later changes plain, earlier ones stay masked")
    func redeclareAndUndeclare() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        try await Prefs.succeed(["--db", database, "declare", "api.token", "--type", "string", "--summary", "a new summary"])
        #expect(try await Prefs.succeed(["--db", database, "describe", "api.token"]).contains("secret   yes"))

        try await Prefs.succeed(["--db", database, "undeclare", "api.token"])
        try await Prefs.succeed(["--db", database, "write", "api.token", "now-plain"])
        let history = try await AttributionTests.history(database, ["api.token"])
        #expect(history.first?["value"] as? String == "now-plain")
        #expect(history.dropFirst().allSatisfy { $0["secret"] as? Bool == true }, "\(history)")
        #expect(try await !Prefs.succeed(["--db", database, "history"]).contains(Self.plaintext))

        try await Prefs.succeed(["--db", database, "declare", "other", "--type", "string", "--secret"])
        try await Prefs.succeed(["--db", database, "declare", "other", "--type", "string", "--no-secret"])
        try await Prefs.succeed(["--db", database, "write", "other", "shown"])
        #expect(try await Prefs.succeed(["--db", database, "list"]).contains("shown"))
    }
}
#endif
