#if Prefs
import ChildProcesses
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
import TestScheduling
#endif

/// `export FILE` writes what FILE names without replacing what FILE is: a link is
/// written through to its target, a FIFO or device is written as a stream, a directory refused.
@Suite("export FILE: what the path is", .offThePool)
struct ExportTargetTests {
    private static func database(in directory: TemporaryDirectory) async throws -> String {
        let database = directory.path("db.sqlite")
        try await Prefs.succeed(["--db", database, "write", "name", "Ada"])
        return database
    }

    private static let expected = "{\n  \"name\": \"Ada\"\n}\n"

    private static func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test("a symbolic link stays a link; its target is replaced atomically and keeps its mode")
    func writesThroughALink() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let target = directory.path("real.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o644)
        let link = directory.path("backup.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.json")  // relative, as ln -s makes

        try await Prefs.succeed(["--db", database, "export", link])
        #expect(Self.fileType(link) == S_IFLNK, "the link was replaced by a regular file")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == Self.expected)
        var info = stat()
        #expect(stat(target, &info) == 0 && info.st_mode & 0o777 == 0o644)

        // A dangling link: its target is created.
        let dangling = directory.path("dangling.json")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: directory.path("new.json"))
        try await Prefs.succeed(["--db", database, "export", dangling])
        #expect(Self.fileType(dangling) == S_IFLNK)
        #expect(try String(contentsOfFile: directory.path("new.json"), encoding: .utf8) == Self.expected)
    }

    @Test("a FIFO is written as a stream, not replaced by a file")
    func writesToAFIFO() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let fifo = directory.path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A reader of the FIFO: `cat` prints what export writes into it.
        let reader = try ChildProcess("/bin/cat", [fifo])
        try await Prefs.succeed(["--db", database, "export", fifo])
        let outcome = try #require(await reader.wait(timeout: .seconds(20)), "cat never saw the end of the stream")
        #expect(outcome.standardOutput == Self.expected)
        #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO was replaced")
    }

    @Test("a character device is written as a stream and stays a device; a link to one stays a link")
    func writesToACharacterDevice() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        // A null device of the test's own (see `characterDevice`): never /dev/null itself.
        let device = try directory.characterDevice("null", like: "null")
        let kind = Self.fileType(device)
        try await Prefs.succeed(["--db", database, "export", device])
        #expect(Self.fileType(device) == kind, "the device was replaced")
        // A link to a device (what /dev/stdout is): written through, the link kept.
        let link = directory.path("out")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: device)
        try await Prefs.succeed(["--db", database, "export", link])
        #expect(Self.fileType(link) == S_IFLNK)
        #expect(Self.fileType(device) == kind)
    }

    @Test("a link to /proc/self/fd/1 (what /dev/stdout is) writes to standard output, a pipe here, and stays a link")
    func writesThroughAStandardOutputLink() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        // A link of the test's own: never /dev/stdout itself (see `characterDevice`).
        let link = directory.path("stdout")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/proc/self/fd/1")
        #expect(try await Prefs.succeed(["--db", database, "export", link]) == Self.expected)
        #expect(Self.fileType(link) == S_IFLNK)
    }

    @Test("a directory is refused with one line, and nothing is written in it")
    func refusesADirectory() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.database(in: directory)
        let folder = directory.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let line = try await Prefs.fail(["--db", database, "export", folder])
        #expect(line.contains("is a directory"), "\(line)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }
}
#endif
