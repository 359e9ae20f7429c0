import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Starts `processes` helpers at once, each opening `database` (which does not exist yet) and
/// writing its own key; returns the failures (status and what it said), empty when all succeeded.
/// `idle` starts them at the lowest CPU priority with a busy timeout of two minutes: on a loaded
/// machine they then wait longer for each other, but a helper that gives up without waiting
/// (the bug these tests catch: SQLITE_BUSY at once while switching to WAL) still fails at once.
private func openTogether(_ database: String, processes: Int, idle: Bool = false) async throws -> [String] {
    let environment = idle ? ["DEFAULTS_TEST_HELPER_BUSY_TIMEOUT": "120"] : [:]
    let helpers = try (1...processes).map { index in
        try RunningHelper(["set-int", database, "k\(index)", "\(index)"], environment: environment, idle: idle)
    }
    var failures: [String] = []
    for (index, helper) in helpers.enumerated() {
        let status = await helper.exitStatus(timeout: .seconds(idle ? 600 : 60))
        if status != 0 { failures.append("process \(index + 1): status \(status.map(String.init) ?? "still running"): \(helper.errors)") }
    }
    return failures
}

@Suite("Engine: processes that open one new file at once", .offThePool)
struct OpenTogetherTests {
    /// Eight processes on each new file: creating it, switching it to WAL and migrating wait
    /// for each other under the busy timeout (SQLite answers SQLITE_BUSY at once, without its
    /// busy handler, to one of two connections that both want to switch the journal).
    private func rounds(_ count: Int, idle: Bool = false) async throws {
        let directory = try TemporaryDirectory()
        let started = ContinuousClock.now
        for round in 1...count {
            let database = directory.path + "/r\(round)/d.sqlite"
            let failures = try await openTogether(database, processes: 8, idle: idle)
            #expect(failures.isEmpty, "round \(round): \(failures.joined(separator: "\n"))")
            guard failures.isEmpty else { return }
            let store = try DefaultsStore(path: database)
            #expect(try await store.keys().count == 8)
        }
        print("\(count) rounds of 8 processes opening one new file: \(ContinuousClock.now - started)")
    }

    @Test func eightProcessesOpenANewFileTogether() async throws {
        try await rounds(4)
    }

    /// 1,200 processes, in the slow tier beside the other suites: the helpers run at idle
    /// priority (`nice -n 19`), so their start-ups take the cores only when the suites beside
    /// them leave them free (at normal priority they took both cores for 207–277 s and pushed
    /// suites that time what they check past their deadlines).
    @Test(.slowTier)
    func eightProcessesOpenANewFileTogetherManyTimes() async throws {
        try await rounds(150, idle: true)
    }
}
