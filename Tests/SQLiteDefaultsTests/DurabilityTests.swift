import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing

@Suite("Durability", .requiresSQLiteShell)
struct DurabilityTests {
    /// Starts the helper's write loop, lets it acknowledge some writes, kills it with
    /// SIGKILL, and checks that every acknowledged value is on disk.
    @Test func aKilledWriterLosesNoAcknowledgedWrite() throws {
        let directory = try TemporaryDirectory()
        _ = try DefaultsStore(path: directory.database)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: builtExecutable("DefaultsTestHelper"))
        process.arguments = ["write-loop", directory.database, "counter"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        // Read acknowledgements until at least 200 writes have returned.
        var acknowledged = 0
        var buffer = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while acknowledged < 200, ContinuousClock.now < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += String(decoding: chunk, as: UTF8.self)
            let lines = buffer.split(separator: "\n", omittingEmptySubsequences: false)
            buffer = String(lines.last ?? "")
            for line in lines.dropLast() { if let value = Int(line) { acknowledged = value } }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(acknowledged >= 200)

        let reopened = try DefaultsStore(path: directory.database)
        #expect(try reopened.value(for: DefaultsKey<Int>("counter", default: 0)) >= acknowledged)
        #expect(try sqlite3(directory.database, "PRAGMA integrity_check") == "ok")
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
