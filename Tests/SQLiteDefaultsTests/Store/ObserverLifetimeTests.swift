import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Store lifetime and file faults", .offThePool, .serialized)
struct ObserverLifetimeTests {
    /// Measured in a separate process, where no other test opens descriptors or threads.
    @Test func aDeallocatedStoreStopsItsMonitorAndLeavesNoDescriptor() async throws {
        let directory = try TemporaryDirectory()
        let result = try await runHelper("lifecycle", directory.database, "count", "25")
        #expect(result.status == 0, "\(result.error)")
        let numbers = result.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(numbers.count == 4)
        if numbers.count == 4 {
            #expect(numbers[1] == numbers[0], "file descriptors before and after: \(numbers[0]) → \(numbers[1])")
            #expect(numbers[3] == numbers[2], "threads before and after: \(numbers[2]) → \(numbers[3])")
        }
        #expect(try DefaultsStore(path: directory.database)[.count] == 25)
        // And in this process: nothing still holds the files open once the stores are gone.
        do { let store = try DefaultsStore(path: directory.database); store[.name] = "x" }
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "").hasPrefix(directory.path)
        }
        #expect(open.isEmpty)
    }

    @Test func aDeletedDatabaseFileIsReportedNotCrashed() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "before"
        let failures = store.reportedErrors()
        try FileManager.default.removeItem(atPath: directory.database)
        var iterator = failures.makeAsyncIterator()
        let reported = await iterator.next()
        #expect(reported?.code == .databaseReplaced)
        let error = #expect(throws: DefaultsError.self) { try store.set("after", for: .name) }
        #expect(error?.code == .databaseReplaced)
        store[.name] = "also refused"
        #expect(store.lastReportedError?.code == .databaseReplaced)
    }

    @Test func aReplacedDatabaseFileIsReported() async throws {
        let directory = try TemporaryDirectory()
        let store = try DefaultsStore(path: directory.database)
        store[.name] = "before"
        let failures = store.reportedErrors()
        let other = directory.path + "/other.sqlite"
        do { let replacement = try DefaultsStore(path: other); replacement[.name] = "replacement" }
        #expect(rename(other, directory.database) == 0)
        var iterator = failures.makeAsyncIterator()
        #expect(await iterator.next()?.code == .databaseReplaced)
        #expect(throws: DefaultsError.self) { try store.value(for: DefaultsKey<Int>("uncached", default: 0)) }
    }
}
