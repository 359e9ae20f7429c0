import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

private let timeout = DefaultsKey<Int>("timeout", default: 30)
private let ratio = DefaultsKey<Double>("ratio", default: 1)
private let document = DefaultsKey<String>("document", default: "")

/// The code of the ``DefaultsError`` that `body` throws; nil when it throws nothing or another error.
private func code(of body: () throws -> some Any) -> DefaultsError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as DefaultsError {
        return error.code
    } catch {
        return nil
    }
}

@Suite("History: who changed what, and when", .offThePool, .requiresSQLiteShell)
struct HistoryTests {
    @Test func aSetIsRecordedWithValueTimeAndThisProcessAsWriter() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let before = Date()
        try store.set(45, for: timeout)
        let after = Date()
        let entries = try store.history(for: timeout)
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.key == "timeout")
        #expect(entry.value == .value(45))
        #expect(!entry.isRemoved)
        #expect(entry.writer == DefaultsWriter.current)
        #expect(entry.writer.kind == .library)
        #expect(entry.writer.pid == getpid())
        #expect(entry.writer.program == ProcessInfo.processInfo.processName)
        #expect(entry.writer.user != nil && entry.writer.host != nil)
        // Milliseconds: the entry's time lies within the call, to the millisecond.
        #expect(entry.date.timeIntervalSince1970 >= (before.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        #expect(entry.date.timeIntervalSince1970 <= (after.timeIntervalSince1970 * 1000).rounded(.up) / 1000)
    }

    @Test func twoSpellingsOfAKeyAreTwoHistories() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"  // equal as Swift strings, two rows in SQLite
        try store.set(.integer(1), for: DefaultsKey<SQLiteValue?>(composed))
        try store.set(.integer(2), for: DefaultsKey<SQLiteValue?>(decomposed))
        let entries = try store.history(keys: [composed, decomposed])
        #expect(entries.count == 2)
        #expect(Set(entries.map { Array($0.key.utf8) }) == [Array(composed.utf8), Array(decomposed.utf8)])
    }

    @Test func newestFirstWithLimitAndKeys() throws {
        let store = try DefaultsStore.inMemory()
        for value in 1...5 { try store.set(value, for: timeout) }
        try store.set(0.5, for: ratio)
        try store.remove(timeout)
        #expect(try store.history(for: timeout).map(\.value) == [.removed, .value(5), .value(4), .value(3), .value(2), .value(1)])
        #expect(try store.history(for: timeout, limit: 2).map(\.value) == [.removed, .value(5)])
        #expect(try store.history(for: timeout).first?.isRemoved == true)
        let all = try store.history()
        #expect(all.map(\.key) == ["timeout", "ratio", "timeout", "timeout", "timeout", "timeout", "timeout"])
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.sequence > $1.sequence })
        #expect(try store.history(keys: ["ratio"]).map(\.value) == [.value(.real(0.5))])
        #expect(try store.history(keys: ["ratio", "timeout"], limit: 3).map(\.key) == ["timeout", "ratio", "timeout"])
        #expect(try store.history(limit: 0).isEmpty)
        #expect(code(of: { try store.history(limit: -1) }) == .misuse)
        #expect(code(of: { try store.history(keys: [""]) }) == .invalidKey)
    }

    @Test func aTransactionWritingOneKeyThreeTimesIsOneEntryWithTheFinalValue() throws {
        let store = try DefaultsStore.inMemory()
        try store.set(1, for: timeout)
        try store.transaction { tx in
            for value in [10, 20, 30] { try tx.set(value, for: timeout) }
            try tx.set(2.5, for: ratio)
        }
        #expect(try store.history(for: timeout).map(\.value.written) == [30, 1])
        #expect(try store.history().count == 3)
    }

    @Test func aTransactionThatEndsWhereItStartedIsNoEntry() async throws {
        let store = try DefaultsStore.inMemory()
        try await store.set(1, for: timeout)
        let seen = Collected<Int>()
        let token = store.observe(timeout) { seen.append($0.newValue) }
        try await store.transaction { tx in
            try tx.set(2, for: timeout)
            try tx.set(1, for: timeout)
        }
        try await store.set(3, for: timeout)
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all == [3], "observers heard nothing of the transaction")
        await #expect(try store.history(for: timeout).map(\.value.written) == [3, 1])
        _ = token
    }

    @Test func aRolledBackTransactionAndANestedRollbackLeaveNoEntry() throws {
        struct Abort: Error {}
        let store = try DefaultsStore.inMemory()
        #expect(throws: Abort.self) {
            try store.transaction { tx in
                try tx.set(5, for: timeout)
                throw Abort()
            }
        }
        try store.transaction { tx in
            try tx.set(7, for: timeout)
            _ = try? store.transaction { _ in
                try store.set(0.25, for: ratio)
                throw Abort()
            }
        }
        #expect(try store.history().map(\.key) == ["timeout"])
        #expect(try store.history(for: timeout).map(\.value.written) == [7])
    }

    @Test func writingTheValueAlreadyStoredIsNoEntry() throws {
        let store = try DefaultsStore.inMemory()
        try store.set(4, for: timeout)
        try store.set(4, for: timeout)
        try store.transaction { tx in try tx.set(4, for: timeout) }
        #expect(try store.history(for: timeout).count == 1)
    }

    @Test func nanIsRefusedAndLeavesNoEntry() throws {
        let store = try DefaultsStore.inMemory()
        #expect(code(of: { try store.set(.nan, for: ratio) }) == .encodingFailed)
        #expect(try store.history().isEmpty)
    }

    @Test func removeAllRecordsEveryKeyRemoved() throws {
        let store = try DefaultsStore.inMemory()
        try store.set(1, for: timeout)
        try store.set(0.5, for: ratio)
        try store.removeAll()
        let newest = try store.history(limit: 2)
        #expect(Set(newest.map(\.key)) == ["timeout", "ratio"])
        #expect(newest.allSatisfy { $0.isRemoved && $0.value == .removed && $0.value.written == nil })
    }

    @Test func aSQLClientsWriteIsRecordedAsSQLAndObserversHearItsWriter() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.set(1, for: timeout)
        let seen = Collected<AnyDefaultsChange>()
        let token = store.observe { seen.append($0) }
        try await sqlite3(directory.database, "UPDATE defaults SET value = 2 WHERE key = 'timeout'")
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all.first?.writer == DefaultsWriter(kind: .sql))
        let entry = try await #require(try store.history(for: timeout).first)
        #expect(entry.value == .value(2))
        #expect(entry.writer == DefaultsWriter(kind: .sql))
        _ = token
    }

    @Test func observersHearThisProcessAsTheWriterOfLocalChanges() async throws {
        let store = try DefaultsStore.inMemory()
        let seen = Collected<DefaultsChange<Int>>()
        let token = store.observe(timeout) { seen.append($0) }
        try await store.set(9, for: timeout)
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all.first?.writer == DefaultsWriter.current)
        _ = token
    }

    @Test func anotherProcessIsRecordedWithItsOwnProcessId() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let result = try await runHelper("set-int", directory.database, "timeout", "12")
        #expect(result.status == 0)
        let entry = try await #require(try store.history(for: timeout).first)
        #expect(entry.value == .value(12))
        #expect(entry.writer.kind == .library)
        #expect(entry.writer.program == "DefaultsTestHelper")
        #expect(entry.writer.pid != nil && entry.writer.pid != getpid())
    }

    @Test func aLargeValueIsKeptBySizeAndTheFileStaysBounded() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        let large = String(repeating: "x", count: 10_000_000)
        for index in 0..<5 { try await store.set(large + "\(index)", for: document) }
        try await store.set("small", for: document)
        let entries = try await store.history(for: document)
        #expect(entries.count == 6)
        #expect(entries[0].value == .value("small") && entries[0].omittedByteCount == nil)
        #expect(entries[1].value == .tooLargeToKeep(byteCount: 10_000_001) && !entries[1].isRemoved && entries[1].omittedByteCount == 10_000_001)
        // The history holds sizes, not five copies of 10 MB.
        let logBytes = Int(try await sqlite3(directory.database, "SELECT sum(length(CAST(value AS BLOB))) FROM defaults_changes")) ?? -1
        #expect(logBytes >= 0 && logBytes < 1_000)
        let limit = DefaultsStore.historyValueLimit
        try await store.set(String(repeating: "y", count: limit), for: document)
        await #expect(try store.history(for: document).first?.value.written?.utf8.count == limit)
        // One byte more is kept by size only: Swift's limit is the triggers' own (Migrations/0008).
        try await store.set(String(repeating: "z", count: limit + 1), for: document)
        await #expect(try store.history(for: document).first?.value == .tooLargeToKeep(byteCount: limit + 1))
    }

    @Test func aValueThatDoesNotDecodeIsUndecodableNotRemoved() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES ('timeout', 'soon')")
        let entry = try await #require(try store.history(for: timeout).first)
        #expect(entry.value == .undecodable(.text("soon")) && entry.value.written == nil && !entry.isRemoved)
        await #expect(try store.history(keys: ["timeout"]).first?.value == .value(.text("soon")))
    }

    @Test func aRestoredOlderFileShowsOnlyTheHistoryItHolds() async throws {
        let directory = try TemporaryDirectory()
        let backup = directory.path + "/backup.sqlite"
        let store = try DefaultsStore(path: directory.database)
        try await store.set(1, for: timeout)
        try await sqlite3(directory.database, ".backup '\(backup)'")
        try await store.set(2, for: timeout)
        try await store.set(3, for: timeout)
        try await sqlite3(directory.database, ".restore '\(backup)'")
        await #expect(try store.history(for: timeout).map(\.value.written) == [1])
        // Writing on continues from the restored file's numbers, claiming nothing it lost.
        try await store.set(4, for: timeout)
        await #expect(try store.history(for: timeout).map(\.value.written) == [4, 1])
        let reopened = try DefaultsStore(path: directory.database)
        let seen = try store.value(for: timeout)
        #expect(try reopened.value(for: timeout) == 4, "\(seen)")
    }

    @Test func aWriterKilledMidTransactionLeavesNoEntry() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.set(1, for: timeout)
        let helper = try RunningHelper(["hold-transaction", directory.database, "timeout"])
        #expect(await helper.line { $0 == "holding" } != nil, "\(helper.errors)")
        helper.send(SIGKILL)
        #expect(await helper.exitStatus() == SIGKILL)
        #expect(try await store.history(for: timeout).map(\.value.written) == [1])
        try await store.set(2, for: timeout)
        #expect(try await store.history(for: timeout).map(\.value.written) == [2, 1])
    }

    @Test func theLengthKeptIsASettingOfTheFile() throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        #expect(try store.historyRetention == 10_000)
        try store.setHistoryRetention(150)
        #expect(code(of: { try store.setHistoryRetention(99) }) == .invalidConfiguration)
        let other = try DefaultsStore(path: directory.database)
        #expect(try other.historyRetention == 150)
        for value in 1...2_500 { try other.set(value, for: timeout) }
        let kept = try store.history(for: timeout, limit: 10_000)
        #expect(kept.count >= 150 && kept.count <= 1_150)
        #expect(kept.first?.value == .value(2_500))
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $0.sequence == $1.sequence + 1 })
    }

    @Test func manyShortLivedWritersStillPruneTheLog() async throws {
        let directory = try TemporaryDirectory()
        try await DefaultsStore(path: directory.database).setHistoryRetention(100)
        // Each store writes a few times and goes away: none reaches 1,000 commits of its own.
        for round in 0..<150 {
            let store = try DefaultsStore(path: directory.database)
            for value in 0..<10 { try await store.set(round * 10 + value, for: timeout) }
        }
        let rows = Int(try await sqlite3(directory.database, "SELECT count(*) FROM defaults_changes")) ?? -1
        #expect(rows >= 100 && rows <= 1_100)
    }

    @Test(.slowTier) func pruningWhileAnotherProcessReadsHistory() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        try await store.setHistoryRetention(100)
        try await store.set(0, for: timeout)
        let reader = try RunningHelper(["read-history", directory.database, "400"])
        var value = 0
        while reader.lines.all.last != "done", value < 200_000 {
            value += 1
            try await store.set(value, for: timeout)
        }
        #expect(await reader.line { $0 == "done" } != nil, "\(reader.errors)")
        let reads = reader.lines.all.filter { $0.hasPrefix("read ") }
        #expect(reads.count == 400)
        #expect(!reader.lines.all.contains("bad order"))
    }

    @Test func rowsAppliedByAReplicatorNameTheFleetAndTheMachine() async throws {
        let store = try DefaultsStore.inMemory()
        let seen = Collected<AnyDefaultsChange>()
        let token = store.observe { seen.append($0) }
        try store.replicaTransaction { transaction in
            try transaction.write("timeout", .integer(99), writer: .fleet(origin: "build-7:/var/lib/app/defaults.sqlite"))
        }
        let entry = try await #require(try store.history(for: timeout).first)
        #expect(entry.value == .value(99))
        #expect(entry.writer == DefaultsWriter(kind: .fleet, host: "build-7"))
        #expect(await seen.waitAsync(count: 1))
        #expect(seen.all.first?.writer == DefaultsWriter(kind: .fleet, host: "build-7"))
        _ = token
    }
}
