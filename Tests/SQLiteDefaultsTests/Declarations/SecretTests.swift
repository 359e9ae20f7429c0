import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let token = DefaultsKey<String>("api.token", default: "", summary: "The upstream's API token", secret: true)
private let plainToken = DefaultsKey<String>("api.token", default: "")

/// A secret key's value is kept in `defaults` alone: the history keeps that it changed, a keyed
/// digest and a sealed copy, never the plaintext, in any table — whoever writes it.
@Suite("Secrets in the history", .offThePool, .requiresSQLiteShell)
struct SecretTests {
    /// Every table of the file, dumped by the sqlite3 shell.
    private func dump(_ path: String) async throws -> String {
        try await sqlite3(path, ".dump")
    }

    @Test func aSecretsHistoryKeepsDigestsNotValuesAndReadsReturnIt() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try await store.declare(token)
        store[token] = "sk-first-1111"
        store[token] = "sk-second-2222"
        store[token] = "sk-first-1111"
        #expect(store[token] == "sk-first-1111", "a read returns the secret")
        let entries = try await store.history(for: token, limit: 10)
        #expect(entries.count == 3)
        #expect(entries.allSatisfy { $0.value.isSecret && $0.value.written == nil })
        let digests = entries.map { entry -> String? in if case .secret(let digest) = entry.value { digest } else { nil } }
        #expect(digests.allSatisfy { $0?.count == 64 })
        #expect(digests[0] == digests[2], "equal values, equal digests")
        #expect(digests[0] != digests[1])
        let dumped = try await dump(temporary.path)
        #expect(dumped.components(separatedBy: "sk-second-2222").count == 1, "nowhere: it was overwritten")
        #expect(dumped.components(separatedBy: "sk-first-1111").count == 2, "once: the defaults row")
    }

    @Test func theDigestIsKeyedPerFile() throws {
        let a = try TemporaryDefaultsStore(), b = try TemporaryDefaultsStore()
        for store in [a.store, b.store] {
            try store.declare(token)
            store[token] = "same"
        }
        let digest = { (store: DefaultsStore) throws -> String? in
            if case .secret(let digest)? = try store.history(for: token, limit: 1).first?.value { digest } else { nil }
        }
        #expect(try digest(a.store) != nil)
        #expect(try digest(a.store) != digest(b.store))
    }

    @Test("Equal values of two secret keys have different digests: writing guesses to one key tells nothing of the other")
    func theDigestIsKeyedByTheKey() throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let mine = DefaultsKey<String>("team-a.token", default: "", secret: true)
        let theirs = DefaultsKey<String>("team-b.dbpass", default: "", secret: true)
        try store.declare(mine, theirs)
        store[theirs] = "winter2026"
        store[mine] = "winter2026"
        store[mine] = "summer2026"
        store[mine] = "winter2026"
        let digest = { (entry: DefaultsHistoryEntry<String>) -> String? in if case .secret(let digest) = entry.value { digest } else { nil } }
        let target = try #require(try store.history(for: theirs, limit: 1).first.flatMap(digest))
        let guesses = try store.history(for: mine, limit: 10).compactMap(digest)
        #expect(guesses.count == 3 && !guesses.contains(target), "no digest of the same value under another key matches")
        #expect(guesses[0] == guesses[2] && guesses[0] != guesses[1], "within one key, equal values still have equal digests")
        // The untyped history (what the console reads) shows the same digest.
        let fed = try store.history(keys: ["team-b.dbpass"], limit: 1).first.flatMap { entry -> String? in
            if case .secret(let digest) = entry.value { digest } else { nil }
        }
        #expect(fed == target)
    }

    @Test func declaringAKeySecretScrubsItsEarlierHistoryInTheSameTransaction() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        store[plainToken] = "leaked-before-1"
        store[plainToken] = "leaked-before-2"
        try await store.remove(plainToken)
        store[plainToken] = "leaked-before-3"
        try await store.declare(token)
        let entries = try await store.history(for: token, limit: 10)
        #expect(entries.map(\.value.isSecret) == [true, false, true, true])
        #expect(entries[1].isRemoved, "a removal stays a removal")
        let dumped = try await dump(temporary.path)
        #expect(!dumped.contains("leaked-before-1") && !dumped.contains("leaked-before-2"))
        // Going back opens the sealed copy, and only the file's own store can.
        #expect(try store.value(writtenBy: entries[2].sequence) == .text("leaked-before-2"))
    }

    @Test func aSQLClientsWriteOfASecretKeepsNoValueAndNoDigest() async throws {
        let temporary = try TemporaryDefaultsStore()
        try await temporary.store.declare(token)
        try await sqlite3(temporary.path, "INSERT INTO defaults VALUES ('api.token', 'from-the-shell')")
        let entry = try await #require(try temporary.store.history(for: token, limit: 1).first)
        #expect(entry.value == .secret(digest: nil))
        #expect(entry.writer.kind == .sql)
        #expect(try await sqlite3(temporary.path, "SELECT count(*) FROM defaults_changes WHERE value = 'from-the-shell'") == "0")
        let refused = #expect(throws: DefaultsError.self) { try temporary.store.value(writtenBy: entry.sequence) }
        #expect(refused?.code == .notInHistory)
    }

    @Test("A key another client declared secret after the store opened: the store's next writes of it are sealed, alone or in a transaction")
    func aSecretDeclarationTheStoreHasNotReadYet() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try await store.set("plain-before", for: plainToken)
        try await sqlite3(temporary.path, "INSERT INTO defaults_schema(key, type, secret) VALUES ('api.token', 'string', 1)")
        try await store.set("sk-alone-3333", for: plainToken)
        try await store.transaction { transaction in try transaction.set("sk-inside-4444", for: plainToken) }
        // Held back, written again the sealed way: one entry each, as a secret with its digest.
        let entries = try await store.history(for: plainToken, limit: 10)
        #expect(entries.count == 3)
        let secrets = entries.filter(\.value.isSecret)
        #expect(secrets.count == 2)
        #expect(secrets.allSatisfy { if case .secret(let digest?) = $0.value { digest.count == 64 } else { false } })
        let opened = try secrets.map { try store.value(writtenBy: $0.sequence) }
        #expect(Set(opened.compactMap { $0 }) == [.text("sk-alone-3333"), .text("sk-inside-4444")])
        #expect(store[plainToken] == "sk-inside-4444")
        let dumped = try await dump(temporary.path)
        #expect(!dumped.contains("sk-alone-3333"))
        #expect(dumped.components(separatedBy: "sk-inside-4444").count == 2, "once: the defaults row")
        // Writing the same value again logs nothing and seals nothing.
        try await store.set("sk-inside-4444", for: plainToken)
        #expect(try await store.history(for: plainToken, limit: 10).count == 3)
    }

    @Test func valuesOfEveryStorageClassOpenExactlyAsWritten() throws {
        let store = try DefaultsStore.inMemory()
        try store.declare(DefaultsDeclaration(key: "blob.secret", type: .data, isSecret: true))
        try store.declare(DefaultsDeclaration(key: "real.secret", type: .double, isSecret: true))
        try store.declare(DefaultsDeclaration(key: "int.secret", type: .int, isSecret: true))
        let values: [(String, SQLiteValue)] = [
            ("blob.secret", .blob(Data([0, 1, 0x3a, 0xff]))),
            ("real.secret", .real(0.1 + 0.2)),
            ("real.secret", .real(-1e-300)),
            ("int.secret", .integer(.min)),
        ]
        for (name, value) in values {
            try store.set(value, for: DefaultsKey<SQLiteValue?>(name))
            let entry = try #require(try store.history(keys: [name], limit: 1).first)
            let opened = try store.value(writtenBy: entry.sequence)
            #expect(opened.map { SQLiteValue.isSameRow($0, value) } == true, "\(name): \(String(describing: opened)) vs \(value)")
        }
    }

    @Test func evolvingASecretKeepsItSecretAndUndeclaringKeepsTheMaskedHistory() async throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        let old = DefaultsKey<String>("token.v1", default: "", secret: true)
        let new = DefaultsKey<String>("token.v2", default: "")     // not marked: the secret carries over
        try await store.declare(old)
        store[old] = "moving-secret"
        try await store.evolve(old, to: new)
        #expect(try store.declaration(for: "token.v2")?.isSecret == true)
        await #expect(try store.history(keys: ["token.v2"], limit: 1).first?.value.isSecret == true)
        #expect(try await sqlite3(temporary.path, "SELECT count(*) FROM defaults_changes WHERE value = 'moving-secret'") == "0")
        try await store.undeclare("token.v2")
        store[new] = "now-plain"
        let entries = try await store.history(keys: ["token.v2"], limit: 2)
        #expect(entries[0].value == .value(.text("now-plain")))
        #expect(entries[1].value.isSecret, "what was masked stays masked")
    }
}
