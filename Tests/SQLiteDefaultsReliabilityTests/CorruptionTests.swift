import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Damaged files, opened by a separate process (so a crash is a signal the test sees, not
/// the end of the test run): each is refused or reported with a clear error, and a refusal
/// writes nothing to the files.
@Suite("Corruption", .offThePool, .requiresSQLiteShell)
struct CorruptionTests {
    static let keyCount = 300
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A database of `keyCount` keys `key.N` (300-byte values, about 30 pages), checkpointed
    /// and closed, so the main file holds everything and there is no -wal.
    private func makeDatabase(_ path: String) throws {
        do {
            let store = try DefaultsStore(path: path, configuration: quietConfiguration())
            try store.transaction { tx in
                for index in 0..<Self.keyCount {
                    try tx.set("value \(index) " + String(repeating: "v", count: 300), for: DefaultsKey<String>("key.\(index)", default: ""))
                }
            }
        }
        try #require(!FileManager.default.fileExists(atPath: path + "-wal"), "the last close should checkpoint and remove the -wal")
    }

    private struct Probe {
        let open: String
        let reads: [String: Int]
        let write: String
        let first: String
    }

    /// Runs the probe; fails the test if it crashed. Checks that a refused open left the files as they were.
    private func probe(_ path: String, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Probe {
        let files = [path, path + "-wal", path + "-shm"]
        let before = files.map { fileBytes($0) }
        let result = try await runReliabilityHelper("probe", path, "key.", "\(Self.keyCount)")
        try #require(result.status == 0, "\(comment): the probe crashed or failed (status \(result.status)): \(result.error)", sourceLocation: sourceLocation)
        let lines = result.output.split(separator: "\n").map(String.init)
        let open = lines.first { $0.hasPrefix("open ") }.map { String($0.dropFirst(5)) } ?? "?"
        let reads = lines.first { $0.hasPrefix("reads") }.map(fields) ?? [:]
        let write = lines.first { $0.hasPrefix("write ") }.map { String($0.dropFirst(6)) } ?? "-"
        let first = lines.first { $0.hasPrefix("first ") }.map { String($0.dropFirst(6)) } ?? "-"
        if !open.hasPrefix("ok") {
            // SQLite's first read of a WAL-mode file opens (creating, empty) the -wal and -shm;
            // nothing may be written to the database or into an existing -wal.
            #expect(fileBytes(path) == before[0], "\(comment): the refused open changed the database", sourceLocation: sourceLocation)
            let wal = fileBytes(path + "-wal")
            #expect(wal == before[1] || (before[1] == nil && wal?.isEmpty != false), "\(comment): the refused open changed the -wal", sourceLocation: sourceLocation)
        }
        return Probe(open: open, reads: reads, write: write, first: first)
    }

    private func overwrite(_ path: String, at offset: Int, count: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 0x5A) }))
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test func damagedPagesAreReportedAsCorrupt() async throws {
        try makeDatabase(directory.database)
        let size = fileSize(directory.database)
        #expect(size >= 20 * 4096)
        // Garbage over two whole pages in the middle, and a few bytes inside a third.
        try overwrite(directory.database, at: (size / 4096 / 2) * 4096, count: 8192)
        try overwrite(directory.database, at: (size / 4096 - 3) * 4096 + 200, count: 64)
        let result = try await probe(directory.database, "damaged pages")
        if result.open == "ok" {
            #expect((result.reads["corrupt"] ?? 0) > 0, "reads of damaged pages must fail as corrupt: \(result.reads)")
            #expect(result.reads.keys.allSatisfy { ["ok", "corrupt"].contains($0) }, "\(result.reads)")
            #expect(["ok", "corrupt"].contains(result.write))
        } else {
            #expect(result.open.hasPrefix("corrupt"), "\(result.open)")
        }
    }

    @Test func damagedHeaderIsNotADatabase() async throws {
        try makeDatabase(directory.database)
        try overwrite(directory.database, at: 0, count: 16)
        let result = try await probe(directory.database, "damaged header")
        #expect(result.open.hasPrefix("notADatabase"), "\(result.open)")
        #expect(!FileManager.default.fileExists(atPath: directory.database + "-wal"))
    }

    @Test(arguments: [0.5, 0.37, 0.02])
    func truncatedFileIsRefusedOrReported(fraction: Double) async throws {
        try makeDatabase(directory.database)
        let size = fileSize(directory.database)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.database))
        try handle.truncate(atOffset: UInt64(Double(size) * fraction))
        try handle.close()
        let result = try await probe(directory.database, "truncated to \(fraction)")
        if result.open == "ok" {
            #expect((result.reads["corrupt"] ?? 0) > 0, "reads past the end must fail as corrupt: \(result.reads)")
            #expect(result.reads.keys.allSatisfy { ["ok", "corrupt"].contains($0) }, "\(result.reads)")
        } else {
            #expect(result.open.hasPrefix("corrupt") || result.open.hasPrefix("notADatabase"), "\(result.open)")
        }
    }

    /// A newer library wrote its schema change and a row, then died: both are only in the
    /// -wal. Refusing the file must leave the main file and the -wal exactly as they are —
    /// closing the refused connection must not checkpoint the -wal into the file.
    @Test func newerSchemaInTheWalIsRefusedAndNotCheckpointed() async throws {
        try makeDatabase(directory.database)
        // The shell kills itself before it can close (and checkpoint), as a crash would.
        _ = try? await sqlite3(directory.database, "PRAGMA user_version = 999; INSERT INTO defaults(key, value) VALUES ('from.newer', 1);\n.system kill -9 $PPID")
        try #require(fileBytes(directory.database + "-wal").map { $0.count > 32 } == true, "the shell left no -wal")
        let result = try await probe(directory.database, "newer schema in the -wal")
        #expect(result.open.hasPrefix("newerSchema"), "\(result.open)")
        #expect(FileManager.default.fileExists(atPath: directory.database + "-wal"), "the refusal deleted the -wal")
        #expect(try await sqlite3(directory.database, "PRAGMA user_version") == "999", "the newer library's change was lost")
    }

    /// The `-wal` of another database next to this one: SQLite cannot tell it apart from its
    /// own (a WAL names no database), so it replays the other file's pages over ours. The
    /// store must refuse it or report it, and must not fold it into the main file.
    @Test func strayWalFromAnotherDatabase() async throws {
        try makeDatabase(directory.database)
        let other = directory.path + "/other.sqlite"
        let written = try await runReliabilityHelper("write-and-die", other, "40")
        try #require(written.status == 0, "\(written.error)")
        let strayWal = try #require(fileBytes(other + "-wal"), "the dying writer left no -wal")
        #expect(strayWal.count > 32)
        try strayWal.write(to: URL(fileURLWithPath: directory.database + "-wal"))
        let mainBefore = fileBytes(directory.database)

        let result = try await probe(directory.database, "stray -wal")
        if result.open == "ok" {
            // Opened: then what it reads must be this database's values, or a corruption error —
            // never the other database's rows passed off as ours.
            #expect(!result.first.contains(canonical(.text("stray-0-")).dropFirst(2).prefix(16)),
                    "the other database's value was read as ours: \(result.first)")
            #expect((result.reads["corrupt"] ?? 0) > 0 || result.reads["ok"] == Self.keyCount, "\(result.reads)")
        } else {
            #expect(result.open.hasPrefix("corrupt"), "\(result.open)")
            #expect(fileBytes(directory.database) == mainBefore, "the refusal folded the stray -wal into the database")
        }
        reportFigure("stray -wal: open \(result.open.prefix(40)), reads \(result.reads), write \(result.write)")
    }
}
