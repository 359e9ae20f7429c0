import CSQLiteDefaults
import DefaultsTestSupport
import FaultVFS
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// The suites that use the fault VFS, one at a time: it watches one directory at a time.
///
/// Not beside each other either (tried 2026-11-29, with a fault scope and a recording scope in
/// the VFS): inside the slow tier the two together made everything slower — the power loss
/// suite 59 → 316 s, the whole run 222 → 336 s (three fleet syncs also missed their 60 s
/// deadline to connect in that run, as some did in a later run without it). One after the
/// other, the power loss suite runs at the end of the run, when the other suites are done.
@Suite("Faults", .offThePool, .serialized)
struct FaultTests {}

/// The test VFS (Tests/FaultVFS) from Swift: installed once as SQLite's default VFS, so every
/// store of this process opens through it unchanged; it watches only the files under the
/// directory a test gives it.
enum FaultFiles {
    /// Installs the VFS (once per process).
    static let installed: Bool = faultvfs_install() == SQLITE_OK

    /// Watches the files under `directory` (recording off, no fault armed) until `body` returns.
    static func watching<Result>(_ directory: String, _ body: () throws -> Result) throws -> Result {
        precondition(installed, "the fault VFS could not be registered")
        faultvfs_scope(directory)
        defer { faultvfs_scope(nil) }
        return try body()
    }

    /// What was recorded since the scope was set: the operations, in the order they reached
    /// the files, and the watched files' paths.
    static func recording() -> Recording {
        let paths = (0..<faultvfs_file_count()).map { String(cString: faultvfs_file_path($0)) }
        var operations: [FileOperation] = []
        for index in 0..<faultvfs_op_count() {
            let op = faultvfs_op_at(index)
            switch Int(op.kind) {
            case FAULTVFS_OP_WRITE:
                let bytes = op.bytes.map { Data(bytes: $0, count: Int(op.length)) } ?? Data()
                operations.append(FileOperation(file: Int(op.file), kind: .write(offset: Int(op.offset), bytes: bytes)))
            case FAULTVFS_OP_TRUNCATE:
                operations.append(FileOperation(file: Int(op.file), kind: .truncate(size: Int(op.offset))))
            case FAULTVFS_OP_SYNC:
                operations.append(FileOperation(file: Int(op.file), kind: .sync))
            case FAULTVFS_OP_DIRECTORY_SYNC:
                operations.append(FileOperation(file: Int(op.file), kind: .directorySync))
            default:
                operations.append(FileOperation(file: Int(op.file), kind: .delete))
            }
        }
        return Recording(paths: paths, operations: operations)
    }
}

/// One write, truncate, sync or delete of a watched file, as the VFS passed it on.
struct FileOperation {
    enum Kind {
        case write(offset: Int, bytes: Data)
        case truncate(size: Int)
        case sync
        /// Unlinking a file (SQLite deletes the `-wal` when the last connection closes, and a
        /// rollback journal at commit): its content goes. Durable only once the directory is
        /// synced; until then a power cut may bring the file back as it last was on disk.
        case delete
        /// The directory was synced (the unix VFS does so at the first sync of a journal or
        /// `-wal` it created): every delete so far is durable.
        case directorySync
    }

    let file: Int
    let kind: Kind
}

struct Recording {
    let paths: [String]
    let operations: [FileOperation]

    /// Indexes of the operations that are syncs.
    var syncIndexes: [Int] {
        operations.indices.filter { if case .sync = operations[$0].kind { true } else { false } }
    }
}

/// What a power cut leaves of one file's writes that were not yet synced.
enum UnsyncedFate: CaseIterable, CustomStringConvertible {
    /// None of them reached the disk.
    case none
    /// All of them did.
    case all
    /// The first ones did, the last of those only partly: a prefix of the unsynced bytes, cut
    /// at a sector (512 bytes) inside a write.
    case torn
    /// Some did and some did not, in any order (the disk reorders writes): each write kept or
    /// lost on its own; truncates and deletes are kept.
    case scattered

    var description: String {
        switch self {
        case .none: "none"
        case .all: "all"
        case .torn: "torn"
        case .scattered: "scattered"
        }
    }
}

/// The files a power cut would leave: for each file, what its last sync made durable, plus
/// what became of the writes since (`UnsyncedFate`). The `-shm` never survives (it is
/// never recorded).
struct PowerCut {
    static let sectorSize = 512

    /// Each file as its last sync left it (`durable`) and the operations since (`unsynced`),
    /// as of a cut point that only moves forward (`advance(to:)`): rebuilding every cut of a
    /// recording costs one pass over it.
    struct Replayer {
        let recording: Recording
        private(set) var durable: [Data]
        private(set) var unsynced: [[FileOperation.Kind]]
        private(set) var position = 0

        init(_ recording: Recording) {
            self.recording = recording
            durable = Array(repeating: Data(), count: recording.paths.count)
            unsynced = Array(repeating: [], count: recording.paths.count)
        }

        /// Takes in the operations before `cut`.
        mutating func advance(to cut: Int) {
            while position < cut {
                let operation = recording.operations[position]
                position += 1
                switch operation.kind {
                case .sync:
                    for kind in unsynced[operation.file] { PowerCut.apply(kind, to: &durable[operation.file]) }
                    unsynced[operation.file].removeAll()
                case .directorySync:
                    // A deleted file is gone for good; what was written to a file made since is
                    // still unsynced.
                    for file in unsynced.indices {
                        guard let last = unsynced[file].lastIndex(where: { if case .delete = $0 { true } else { false } }) else { continue }
                        durable[file] = Data()
                        unsynced[file].removeSubrange(...last)
                    }
                default:
                    unsynced[operation.file].append(operation.kind)
                }
            }
        }
    }

    /// The file's bytes after `fate` befell its unsynced operations.
    static func survivor(durable: Data, unsynced: [FileOperation.Kind], fate: UnsyncedFate,
                         random: inout SeededRandom) -> Data {
        var image = durable
        switch fate {
        case .none:
            break
        case .all:
            for kind in unsynced { apply(kind, to: &image) }
        case .torn:
            // The unsynced bytes in order; the cut falls on a sector boundary of one write.
            let total = unsynced.reduce(0) { sum, kind in
                if case .write(_, let bytes) = kind { sum + bytes.count } else { sum }
            }
            var keep = total == 0 ? 0 : Int.random(in: 0..<total, using: &random)
            for kind in unsynced {
                guard case .write(let offset, let bytes) = kind else { apply(kind, to: &image); continue }
                if keep >= bytes.count {
                    apply(kind, to: &image)
                    keep -= bytes.count
                    continue
                }
                // Sectors of the file, not of the write: what reached the disk ends at a
                // sector boundary.
                let end = ((offset + keep) / sectorSize) * sectorSize
                if end > offset { apply(.write(offset: offset, bytes: bytes.prefix(end - offset)), to: &image) }
                break
            }
        case .scattered:
            for kind in unsynced {
                if case .write = kind, Bool.random(using: &random) { continue }
                apply(kind, to: &image)
            }
        }
        return image
    }

    /// Data, not [UInt8]: its copies and zero-filling run as compiled Foundation code, even in
    /// a debug build of the tests.
    static func apply(_ kind: FileOperation.Kind, to image: inout Data) {
        switch kind {
        case .write(let offset, let bytes):
            if image.count < offset + bytes.count { image.count = offset + bytes.count }
            image.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        case .truncate(let size):
            image.count = size
        case .delete:
            image = Data()
        case .sync, .directorySync:
            break
        }
    }
}

/// A fresh directory for files the tests rebuild and open many times: on a memory file system
/// when there is one (/dev/shm), where the library's own syncs cost nothing.
final class ScratchDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.isWritableFile(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        path = base + "/sqlite-defaults-faults-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// `PRAGMA integrity_check` of the file through a connection of its own ("ok" when intact).
func integrityCheck(_ path: String) -> String {
    var handle: OpaquePointer?
    defer { if let handle { sqlite3_close_v2(handle) } }
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else { return "cannot open" }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK, let statement else {
        return String(cString: sqlite3_errmsg(handle))
    }
    defer { sqlite3_finalize(statement) }
    var lines: [String] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        lines.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
    }
    return lines.isEmpty ? String(cString: sqlite3_errmsg(handle)) : lines.joined(separator: "; ")
}
