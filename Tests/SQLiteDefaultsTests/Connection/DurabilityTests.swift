import ChildProcesses
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Durability", .offThePool, .requiresSQLiteShell)
struct DurabilityTests {
    /// Starts the helper's write loop, lets it acknowledge some writes, kills it with
    /// SIGKILL, and checks that every acknowledged value is on disk.
    @Test func aKilledWriterLosesNoAcknowledgedWrite() async throws {
        let directory = try TemporaryDirectory()
        _ = try DefaultsStore(path: directory.database)
        // Acknowledged values, as the helper prints them after each write returns.
        let acknowledgements = Collected<Int>()
        let writer = try ChildProcess(builtExecutable("DefaultsTestHelper"), ["write-loop", directory.database, "counter"],
                                      onLine: { line in Int(line).map { acknowledgements.append($0) } })
        #expect(await acknowledgements.waitAsync(timeout: .seconds(30)) { ($0.last ?? 0) >= 200 })
        writer.send(SIGKILL)
        let outcome = await writer.wait(timeout: .seconds(30))
        #expect(outcome?.killedBySignal == true)
        let acknowledged = acknowledgements.all.last ?? 0
        #expect(acknowledged >= 200)

        let reopened = try DefaultsStore(path: directory.database)
        #expect(try reopened.value(for: DefaultsKey<Int>("counter", default: 0)) >= acknowledged)
        #expect(try await sqlite3(directory.database, "PRAGMA integrity_check") == "ok")
    }

    @Test func fullSynchronousIsAnOption() throws {
        let directory = try TemporaryDirectory()
        var configuration = DefaultsStore.Configuration()
        configuration.synchronous = .full
        let store = try DefaultsStore(path: directory.database, configuration: configuration)
        store[.count] = 9
        #expect(try DefaultsStore(path: directory.database)[.count] == 9)
    }
}
