import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsTesting
import Testing
import TestScheduling

private let stable = DefaultsKey<String>("api.url", default: "")
private let counter = DefaultsKey<Int>("counter", default: 0)

/// A key's version survives the pruning of its history (issue 46, repro 44): `requireVersion(0)`
/// ("create only") never matches a key that exists because newer changes of other keys pruned
/// its only entry.
@Suite("A key's version survives pruning", .offThePool, .requiresSQLiteShell)
struct VersionPruningTests {
    /// Keeps 100 changes and writes 1,200 of another key: the commits cross 1,000 entries and prune.
    private static func pruneAway(_ store: DefaultsStore) throws {
        for value in 1...1_200 { store[counter] = value }
    }

    @Test("a stable key whose only change was pruned keeps that change's version; create-only refuses it")
    func aPrunedKeyKeepsItsVersion() throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try store.setHistoryRetention(100)
        store[stable] = "https://prod.example/"
        let version = try store.version(of: stable)
        #expect(version > 0)
        try Self.pruneAway(store)
        #expect(try store.history(for: stable, limit: 1).isEmpty, "the test needs the key's entry pruned")
        #expect(try store.version(of: stable) == version)
        #expect(try store.versions()["api.url"] == version)
        let error = #expect(throws: DefaultsError.self) {
            try store.transaction { transaction in
                try transaction.requireVersion(0, of: "api.url")
                try transaction.set("https://new.example/", for: stable)
            }
        }
        #expect(error?.code == .versionConflict && error?.currentVersion == version)
        #expect(store[stable] == "https://prod.example/")
        try store.transaction { transaction in
            try transaction.requireVersion(version, of: "api.url")
            try transaction.set("https://new.example/", for: stable)
        }
        let newer = try store.version(of: stable)
        #expect(newer > version && store[stable] == "https://new.example/", "a kept change is newer than the pruned one")
    }

    @Test("a removed key whose removal was pruned keeps the removal's version; a never written key stays at 0")
    func aPrunedRemovalKeepsItsVersion() throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try store.setHistoryRetention(100)
        store[stable] = "x"
        try store.remove(stable)
        let removal = try store.version(of: stable)
        try Self.pruneAway(store)
        #expect(try store.version(of: stable) == removal)
        #expect(try store.version(of: "never.written") == 0)
        #expect(try store.versions()["never.written"] == nil)
    }

    @Test("canonically equivalent twins keep their own versions through a prune")
    func twinsKeepTheirOwnVersions() throws {
        let temporary = try TemporaryDefaultsStore()
        let store = temporary.store
        try store.setHistoryRetention(100)
        store[DefaultsKey<Int>("caf\u{E9}", default: 0)] = 1
        let nfc = try store.version(of: "caf\u{E9}")
        try Self.pruneAway(store)
        #expect(try store.version(of: "caf\u{E9}") == nfc)
        #expect(try store.version(of: "cafe\u{301}") == 0, "the NFD twin was never written")
    }

    @Test("a file from before the table migrates, and prunes from then on keep versions")
    func anOlderFileMigrates() async throws {
        let temporary = try TemporaryDefaultsStore()
        try temporary.store.close()
        try await sqlite3(temporary.path, "DROP TABLE defaults_versions; DROP TABLE defaults_json_steps; DROP VIEW defaults_held_back; DROP INDEX defaults_schema_held_back; PRAGMA user_version = 12;")
        let store = try DefaultsStore(path: temporary.path)
        #expect(try await sqlite3(temporary.path, "SELECT count(*) FROM sqlite_master WHERE name = 'defaults_versions'") == "1")
        try await store.setHistoryRetention(100)
        store[stable] = "kept"
        let version = try store.version(of: stable)
        try Self.pruneAway(store)
        #expect(try store.version(of: stable) == version)
    }
}
