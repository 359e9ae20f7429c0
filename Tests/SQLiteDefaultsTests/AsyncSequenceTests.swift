import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing

@Suite("AsyncSequences", .requiresSQLiteShell)
struct AsyncSequenceTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func updatesYieldsTheCurrentValueThenEachChangeWithoutDuplicates() async throws {
        let store = try DefaultsStore(path: directory.database)
        store[.count] = 1
        var iterator = store.updates(.count).makeAsyncIterator()
        #expect(await iterator.next() == 1)
        store[.count] = 2
        store[.count] = 2          // same value: nothing
        store[.count] = 3
        try sqlite3(directory.database, "UPDATE defaults SET value = 4 WHERE key = 'count'")
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == 3)
        #expect(await iterator.next() == 4)
        try store.remove(.count)
        #expect(await iterator.next() == 0)
    }

    @Test func updatesWithoutInitialValue() async throws {
        let store = try DefaultsStore.inMemory()
        store[.name] = "before"
        var iterator = store.updates(.name, initial: false).makeAsyncIterator()
        store[.name] = "after"
        #expect(await iterator.next() == "after")
    }

    @Test func changesYieldsEveryKeyInCommitOrderAndBuffersForSlowConsumers() async throws {
        let store = try DefaultsStore(path: directory.database)
        let changes = store.changes()
        for index in 0..<200 { store[DefaultsKey<Int>("k\(index % 3)", default: -1)] = index }
        try sqlite3(directory.database, "INSERT INTO defaults VALUES ('shell', 1)")
        var received: [DefaultsKeyChange] = []
        for await change in changes {
            received.append(change)
            if received.count == 201 { break }
        }
        #expect(received.prefix(200).map(\.key) == (0..<200).map { "k\($0 % 3)" })
        #expect(received.prefix(200).map(\.newValue) == (0..<200).map { SQLiteValue.integer(Int64($0)) })
        #expect(received.prefix(200).allSatisfy { $0.origin == .local })
        #expect(received.last == DefaultsKeyChange(key: "shell", origin: .external, newValue: .integer(1), writer: DefaultsWriter(kind: .sql)))
    }

    @Test func endingIterationUnregisters() async throws {
        let store = try DefaultsStore.inMemory()
        let task = Task {
            for await _ in store.updates(.name) {}
        }
        task.cancel()
        _ = await task.value
        // A write after the loop ended reaches nobody and does not block.
        store[.name] = "nobody listening"
        #expect(store[.name] == "nobody listening")
    }
}
