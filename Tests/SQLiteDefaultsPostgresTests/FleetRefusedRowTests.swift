#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// A peer's row that this file refuses, however it is refused — by the declaration's own check,
/// by the database's check where the two disagree, or by a constraint only the database knows —
/// is one refused row: the local value stays, the rest of the batch applies, and nothing throws
/// (a throw would end the sync, and end it again on every restart at the same row).
@Suite("Fleet: a row the file refuses is refused, whoever refuses it", .offThePool)
struct FleetRefusedRowTests {
    /// `accent` (string, allowed `é` and `a`, precomposed) and `cfg` (json), declared in a fresh file.
    private static func declaredStore(_ directory: TemporaryDirectory) throws -> DefaultsStore {
        let store = try DefaultsStore(path: directory.database)
        try store.declare(DefaultsDeclaration(key: "accent", type: .string, allowedValues: ["\u{E9}", "a"]))
        try store.declare(DefaultsDeclaration(key: "cfg", type: .json))
        return store
    }

    @Test("a decomposed é for an allowed precomposed é, and JSON after a byte-order mark: refused; the row after them applies")
    func bytesNotCharacters() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.declaredStore(directory)
        try store.set(.text("a"), for: .raw("accent"))
        try store.set(.text("{}"), for: .raw("cfg"))
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet")
        try replica.recordPushed([PendingRow(key: "accent", value: .text("a")), PendingRow(key: "cfg", value: .text("{}"))], version: 1)

        var refused: [String: String] = [:]
        try replica.apply([FleetRow(key: "accent", value: .text("e\u{301}"), version: 2),
                           FleetRow(key: "cfg", value: .text("\u{FEFF}{}"), version: 3),
                           FleetRow(key: "later", value: .integer(1), version: 4)],
                          identity: "fleet", position: 4, asNewMember: false) { refused[$0] = $1 }
        #expect(Set(refused.keys) == ["accent", "cfg"])
        #expect(refused["accent"]?.contains("\"accent\" is string") == true, "\(refused)")
        #expect(refused["cfg"]?.contains("\"cfg\" is json") == true, "\(refused)")
        #expect(store[.raw("accent")] == .text("a"))
        #expect(store[.raw("cfg")] == .text("{}"))
        #expect(store[.raw("later")] == .integer(1))
        // Counted as seen, not pushed back over the peer's.
        #expect(try replica.pending(among: nil).isEmpty)
        #expect(try replica.isInStep(with: [HashedKey("accent"): 2, HashedKey("cfg"): 3, HashedKey("later"): 4], position: 4))
    }

    @Test("a refusal only the database knows — another message than the declared-key triggers', or an operator's own trigger — is a refused row")
    func refusedByTheDatabaseAlone() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.declare(DefaultsDeclaration(key: "limit", type: .string))
        try await store.set(.text("kept"), for: .raw("limit"))
        // SQLITE_ERROR with a message that is not the triggers' sentence (as SQLite 3.45 and later
        // word it), on a declared key; and RAISE(ABORT) (SQLITE_CONSTRAINT) on an undeclared one.
        _ = try await sqlite3(directory.database, """
            CREATE TRIGGER reworded AFTER UPDATE ON defaults WHEN new.key = 'limit' AND new.value = 'forbidden'
            BEGIN SELECT json_extract('{}', 'bad JSON path'); END;
            CREATE TRIGGER operator_guard AFTER INSERT ON defaults WHEN new.key = 'guarded'
            BEGIN SELECT RAISE(ABORT, 'the operator says no'); END;
            """)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet")
        try replica.recordPushed([PendingRow(key: "limit", value: .text("kept"))], version: 1)
        let changes = Collected<String>()
        let token = store.observe { changes.append($0.key) }
        defer { token.cancel() }

        var refused: [String: String] = [:]
        try replica.apply([FleetRow(key: "limit", value: .text("forbidden"), version: 2),
                           FleetRow(key: "guarded", value: .integer(1), version: 3),
                           FleetRow(key: "fence", value: .integer(1), version: 4)],
                          identity: "fleet", position: 4, asNewMember: false) { refused[$0] = $1 }
        #expect(Set(refused.keys) == ["limit", "guarded"])
        #expect(refused["limit"]?.contains("\"limit\" is string") == true, "\(refused)")
        #expect(refused["guarded"]?.contains("the operator says no") == true, "\(refused)")
        #expect(store[.raw("limit")] == .text("kept"))
        #expect(!store.contains(.raw("guarded")))
        #expect(store[.raw("fence")] == .integer(1))
        #expect(try replica.pending(among: nil).isEmpty)
        // Observers hear the row that applied, and nothing of the refused ones.
        #expect(await changes.waitAsync { $0.contains("fence") })
        #expect(!changes.all.contains("limit") && !changes.all.contains("guarded"))
        // History keeps no trace of the refused writes either.
        #expect(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes WHERE (key = 'limit' AND value = 'forbidden') OR key = 'guarded'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        // Joining the table again (a reconnect to a table gone back in time) finds the refused
        // rows where they were: refused still, so not something the table forgot — the local
        // values are not pushed over the peer's, and nothing is said again — while a newer row
        // applies.
        var refusedAgain: [String] = []
        _ = try replica.rejoin([FleetRow(key: "limit", value: .text("forbidden"), version: 2),
                                FleetRow(key: "guarded", value: .integer(1), version: 3),
                                FleetRow(key: "fence", value: .integer(2), version: 5)],
                               identity: "fleet", forgettingShadows: false) { key, _ in refusedAgain.append(key) }
        #expect(refusedAgain.isEmpty)
        #expect(store[.raw("fence")] == .integer(2))
        #expect(store[.raw("limit")] == .text("kept"))
        #expect(!store.contains(.raw("guarded")))
        #expect(try replica.pending(among: nil).isEmpty)
        #expect(await changes.waitAsync { $0.filter { $0 == "fence" }.count == 2 })
        #expect(!changes.all.contains("limit") && !changes.all.contains("guarded"))
    }

    @Test("a failure of the file itself is not a refusal: the apply fails, and nothing of it is kept")
    func fileFailureIsNotARefusal() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let replica = LocalReplica(store: store)
        _ = try replica.join("fleet")
        // An undeclared key whose write fails with SQLITE_ERROR: not a refusal of a row.
        _ = try await sqlite3(directory.database, """
            CREATE TRIGGER broken AFTER INSERT ON defaults WHEN new.key = 'broken'
            BEGIN SELECT json_extract('{}', 'bad JSON path'); END;
            """)
        #expect(throws: DefaultsError.self) {
            try replica.apply([FleetRow(key: "fine", value: .integer(1), version: 1),
                               FleetRow(key: "broken", value: .integer(1), version: 2)],
                              identity: "fleet", position: 2, asNewMember: false)
        }
        #expect(!store.contains(.raw("fine")))
    }

    @Test("the declaration's own check says what the database says, byte for byte", arguments: [
        "{}", " [1, 2] ", "\u{FEFF}{}", "\u{FEFF}", "", " ", "\"\\ud800\"", "1e400", "-0", "01", "1.", ".5", "-", "[1,]",
        "{\"a\":1,}", "\"a\tb\"", "\"\u{7F}\"", "\u{C}1", "1\u{B}", "[1] x", "{\"a\" : [ true , false , null ] }",
        "\"\\x41\"", "\"\\u12G4\"", "NaN", "{1:2}", "'a'", "\"é\"", "2.e5", "-0.0e-0", "1E+2",
        String(repeating: "[", count: 900) + String(repeating: "]", count: 900),
    ])
    func jsonAsTheDatabaseJudgesIt(text: String) throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try store.declare(DefaultsDeclaration(key: "cfg", type: .json))
        let databaseAccepts = (try? store.set(.text(text), for: .raw("cfg"))) != nil
        #expect(DefaultsValueKind.json.accepts(.text(text)) == databaseAccepts, "\(text.debugDescription.prefix(40)): the database says \(databaseAccepts)")
    }

    @Test("allowed values: the declaration's own check compares bytes, as SQL does")
    func allowedAsTheDatabaseJudgesIt() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.declaredStore(directory)
        let declaration = try #require(try store.declarations().first { $0.key == "accent" })
        for text in ["\u{E9}", "e\u{301}", "a", "A", "a\u{300}"] {
            let databaseAccepts = (try? store.set(.text(text), for: .raw("accent"))) != nil
            #expect(declaration.accepts(.text(text)) == databaseAccepts, "\(text.unicodeScalars.map(\.value)): the database says \(databaseAccepts)")
        }
    }
}
#endif
