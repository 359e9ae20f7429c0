import ChildProcesses
import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

/// Two tests that run in parallel, each with a standard store of its own, writing the same keys
/// through the same process-wide declaration: each sees only its own values.
@Suite("withStandard isolates parallel tests", .offThePool)
struct ParallelStandardStoreTests {
    /// Counts the tests that have written, so each reads only after both have (when the runner
    /// runs them in parallel; run serially, each waits out the deadline and still checks).
    static let written = Collected<Int>()

    @Test func firstTestSeesOnlyItsOwnValues() async throws {
        try await checkIsolation(marker: 1)
    }

    @Test func secondTestSeesOnlyItsOwnValues() async throws {
        try await checkIsolation(marker: 2)
    }

    private func checkIsolation(marker: Int) async throws {
        let store = try DefaultsStore.inMemory()
        try await DefaultsStore.withStandard(store) {
            processWideSettings.int = marker
            processWideSettings.username = "test \(marker)"
            @Default("parallel.only.\(marker)") var own = 0
            own = marker
            Self.written.append(marker)
            _ = await Self.written.waitAsync(timeout: .seconds(20)) { Set($0).isSuperset(of: [1, 2]) }
            #expect(processWideSettings.int == marker)
            #expect(processWideSettings.username == "test \(marker)")
            #expect(DefaultsStore.standard === store)
            let keys = try await store.keys()
            #expect(Set(keys) == ["int", "username", "parallel.only.\(marker)"])
        }
    }
}

/// The process-wide standard store, in a child process (it is opened once per process).
@Suite("DefaultsStore.standard in a child process", .offThePool)
struct ProcessStandardStoreTests {
    /// Runs `DefaultsTestHelper standard-default …` with `XDG_CONFIG_HOME` and `HOME` set;
    /// returns its output lines.
    private func runStandardDefault(xdg: String, home: String, in directory: TemporaryDirectory, value: Int) async throws -> ChildProcess.Outcome {
        let child = try ChildProcess(
            builtExecutable("DefaultsTestHelper"),
            ["standard-default", directory.path + "/helper.sqlite", "appstorage.k", String(value)],
            environment: ["XDG_CONFIG_HOME": xdg, "HOME": home])
        return try #require(await child.wait(timeout: .seconds(120)), "the helper did not finish")
    }

    @Test func aChildUsingDefaultWithoutAStoreWritesTheExecutablesStandardFile() async throws {
        let directory = try TemporaryDirectory()
        let xdg = directory.path + "/config", home = directory.path + "/home"
        let outcome = try await runStandardDefault(xdg: xdg, home: home, in: directory, value: 42)
        #expect(outcome.succeeded, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        let expected = xdg + "/DefaultsTestHelper/defaults.sqlite"
        #expect(lines.contains("before 1"))
        #expect(lines.contains("after 42"))
        #expect(lines.contains("path \(expected)"))
        #expect(lines.contains("failure none"))
        #expect(lines.contains("standard(name:) is standard: true"))
        #expect(lines.contains("standard(name:) twice is one store: true"))
        #expect(lines.contains("other settings: invalidConfiguration"))
        #expect(lines.contains("closed store replaced: true"))
        #expect(FileManager.default.fileExists(atPath: expected))
        #expect(try permissions(expected) == 0o600)
        let reopened = try DefaultsStore(path: expected)
        #expect(try reopened.value(for: DefaultsKey<Int>("appstorage.k", default: 0)) == 42)
        #expect(!FileManager.default.fileExists(atPath: home + "/.config"))

        // A second run opens the same file and finds the value.
        let second = try await runStandardDefault(xdg: xdg, home: home, in: directory, value: 43)
        #expect(second.standardOutput.split(separator: "\n").contains("before 42"))
    }

    @Test func anUnusableConfigDirectoryGivesDefaultsAReportedFailureAndNoCrash() async throws {
        let directory = try TemporaryDirectory()
        let xdg = directory.path + "/config-is-a-file", home = directory.path + "/home"
        #expect(FileManager.default.createFile(atPath: xdg, contents: Data("not a directory".utf8)))
        let outcome = try await runStandardDefault(xdg: xdg, home: home, in: directory, value: 42)
        #expect(outcome.succeeded, "\(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("before 1"), "the default is read")
        #expect(lines.contains("after 42"), "the in-memory stand-in takes writes")
        #expect(lines.contains("path memory"))
        let failure = try #require(lines.first { $0.hasPrefix("failure ") })
        #expect(failure.hasPrefix("failure cannotOpen "))
        #expect(failure.contains(xdg + "/DefaultsTestHelper/defaults.sqlite"))
        // swift-log's default handler writes to standard output.
        #expect((outcome.standardOutput + outcome.standardError).contains("opening the standard store failed"))
        #expect(try String(contentsOfFile: xdg, encoding: .utf8) == "not a directory")
        #expect(!FileManager.default.fileExists(atPath: home + "/.config"))
    }
}
