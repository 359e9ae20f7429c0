import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// A writer whose files cannot grow: RLIMIT_FSIZE in a child process with SIGXFSZ ignored
/// (`write` fails with EFBIG; root is not exempt), and, where the test may mount one, a full
/// 1 MiB tmpfs (ENOSPC). Every write API reports `.diskFull`; nothing acknowledged is lost.
@Suite("Disk full", .offThePool, .requiresSQLiteShell)
struct DiskFullTests {
    @Test func aFullDiskIsANamedErrorAndLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try DefaultsStore(path: directory.database)
            try await store.set("kept", for: DefaultsKey<String>("before", default: ""))
        }
        let written = try await checkDiskFullRun(directory.database, limit: 256 * 1024, expectSpaceAgain: true)
        reportFigure("disk full (RLIMIT_FSIZE): \(written) writes of 8 KiB fit under 256 KiB; set, transaction (at COMMIT and spilled), modify and subscript all reported diskFull")
    }

    /// A file system that is really full (a 1 MiB tmpfs): ENOSPC, which SQLite reports as
    /// SQLITE_FULL. Runs where the test may mount (root with CAP_SYS_ADMIN, as in CI).
    @Test(.enabled(if: TmpfsMount.isPossible, "needs root allowed to mount a tmpfs"))
    func aReallyFullFileSystemIsANamedErrorAndLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        let mountPoint = directory.path + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try #require(try await runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]).status == 0)
        let database = mountPoint + "/defaults.sqlite"
        let written: Int
        do {
            do {
                let store = try DefaultsStore(path: database)
                try await store.set("kept", for: DefaultsKey<String>("before", default: ""))
            }
            written = try await checkDiskFullRun(database, limit: 1 << 40, expectSpaceAgain: false)
        } catch {
            // Unmounted on both paths, not in a defer: a defer cannot await the umount.
            _ = try? await runProcess("/bin/umount", ["-l", mountPoint])
            _ = directory
            throw error
        }
        _ = try? await runProcess("/bin/umount", ["-l", mountPoint])
        _ = directory
        reportFigure("disk full (1 MiB tmpfs): \(written) writes of 8 KiB fit; every write API reported diskFull")
    }

    @Test func creatingADatabaseOnAFullDiskIsANamedError() async throws {
        let directory = try TemporaryDirectory()
        let result = try await runReliabilityHelper("disk-full-open", directory.database)
        #expect(result.status == 0, "the process crashed or failed: \(result.error)")
        #expect(result.output.hasPrefix("open diskFull"), "\(result.output)")
    }
}

/// Runs the helper's disk-full job on `database` and checks what it reported and what the
/// file holds afterwards; returns how many writes fitted.
private func checkDiskFullRun(_ database: String, limit: UInt64, expectSpaceAgain: Bool) async throws -> Int {
    let result = try await runReliabilityHelper("disk-full", database, "\(limit)")
    #expect(result.status == 0, "the writer crashed or failed: \(result.error)")
    var lines: [String: String] = [:]
    for line in result.output.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        if parts.count == 2 { lines[String(parts[0])] = String(parts[1]) }
    }
    func code(_ name: String) -> String? { lines[name]?.split(separator: " ").first.map(String.init) }

    let written = Int(lines["written"] ?? "") ?? 0
    #expect(written > 0, "\(result.output)")
    #expect(code("set") == "diskFull", "throwing set: \(lines["set"] ?? "-")")
    #expect(lines["set"]?.contains("disk is full") == true)
    #expect(lines["readable"] == "true", "values written before the failure are readable")
    #expect(lines["reopened-readable"] == "true", "and readable by a new store")
    #expect(code("transaction") == "diskFull", "transaction: \(lines["transaction"] ?? "-")")
    #expect(lines["transaction-rows"] == "0", "a failed transaction left rows behind")
    #expect(code("spill") == "diskFull", "a transaction spilling before COMMIT: \(lines["spill"] ?? "-")")
    #expect(lines["spill-rows"] == "0", "a failed spilling transaction left rows behind")
    #expect(code("modify") == "diskFull", "modify: \(lines["modify"] ?? "-")")
    #expect(lines["modify-kept"] == "true")
    #expect(code("subscript-last") == "diskFull", "lastReportedError: \(lines["subscript-last"] ?? "-")")
    #expect(code("subscript-stream") == "diskFull", "reportedErrors: \(lines["subscript-stream"] ?? "-")")
    #expect(lines["subscript-absent"] == "true")
    if expectSpaceAgain {
        #expect(code("after-space") == "ok", "writing once there is space again: \(lines["after-space"] ?? "-")")
    }

    // The file is intact and holds everything acknowledged.
    #expect(try await sqlite3(database, "PRAGMA integrity_check") == "ok")
    let store = try DefaultsStore(path: database, configuration: quietConfiguration())
    #expect(store[DefaultsKey<String>("before", default: "")] == "kept")
    for index in 0..<written {
        #expect(store[DefaultsKey<Data>("blob.\(index)", default: Data())] == Data(repeating: UInt8(index % 251), count: 8192))
    }
    if expectSpaceAgain { #expect(store[DefaultsKey<Int>("after", default: 0)] == 42) }
    #expect(store[DefaultsKey<Data>("spill.0", default: Data())].isEmpty)
    return written
}

enum TmpfsMount {
    /// Whether this process may mount a tmpfs (tried once, on a scratch directory). Its two
    /// processes are waited for synchronously: the condition is evaluated once, while the
    /// tests are planned, before any of them runs.
    static let isPossible: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount"),
              let directory = try? TemporaryDirectory() else { return false }
        guard let mounted = try? runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory.path]),
              mounted.status == 0 else { return false }
        _ = try? runProcess("/bin/umount", [directory.path])
        return true
    }()
}
