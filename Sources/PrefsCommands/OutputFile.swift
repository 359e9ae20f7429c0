#if Prefs
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an output file the way its path asks to be written, never replacing what the
/// path is: a regular file is replaced atomically, a symbolic link is written through (its
/// target replaced, the link kept), a FIFO, character device or socket is written as a stream
/// (`/dev/stdout`, `/dev/null`, a named pipe), and a directory is refused.
enum OutputFile {
    /// The most links followed before giving up (as the kernel's ELOOP limit).
    private static let maximumLinks = 40

    /// Writes `bytes` to `path`, as ``write(to:_:)`` does.
    /// - Throws: ``PrefsError`` naming `path` and what the system said.
    static func write(_ bytes: [UInt8], to path: String) throws(PrefsError) {
        do {
            try write(to: path) { sink throws(PrefsError) in try sink.write(bytes: bytes) }
        } catch let error as PrefsError {
            throw error
        } catch {
            throw PrefsError("\(path): \(error)")
        }
    }

    /// Writes to `path` what `produce` writes to its sink, as it writes it (constant memory,
    /// however long the output).
    ///
    /// A regular file (or a missing one) gets a new temporary file beside it, flushed to disk
    /// and renamed over it: readers see the old file or the whole new one, and a failure
    /// leaves the old file as it was. The new file keeps the old one's permission bits; a
    /// new file is readable by its owner only, like the database.
    /// A failure of `produce` (what it throws) is handled as a failed write: the temporary
    /// file is removed and the old file kept.
    /// - Throws: ``PrefsError`` naming `path` and what the system said, or what `produce` threw.
    static func write(to path: String, _ produce: (OutputSink) throws -> Void) throws {
        // stat, not lstat: the kernel follows every link, /proc's own included (/dev/stdout →
        // /proc/self/fd/1 → "pipe:[…]", which names no file a rename could replace).
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT else { throw failure(path, "write") }
            // Missing, or a link to a file not made yet: create the file the link names.
            return try replace(try resolveLinks(path), with: produce, mode: 0o600, shownAs: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            // The real file's path, so the temporary file lands beside it and the rename
            // replaces it, not the link that led there.
            guard let real = realpath(path, nil) else { throw failure(path, "find the file behind") }
            defer { free(real) }
            try replace(String(cString: real), with: produce, mode: info.st_mode & 0o7777, shownAs: path)
        case S_IFDIR:
            throw PrefsError("\(path): is a directory; name a file to write")
        case S_IFIFO, S_IFCHR:
            try stream(produce, to: path, shownAs: path)
        case S_IFSOCK:
            try streamToSocket(produce, at: path, shownAs: path)
        default:
            throw PrefsError("\(path): is not a regular file, FIFO, character device or socket; nothing was written")
        }
    }

    /// A dangling link's final target (the file to create), following each link in turn; a
    /// path that is no link is returned as it is.
    private static func resolveLinks(_ path: String) throws(PrefsError) -> String {
        var current = path
        for _ in 0..<maximumLinks {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                throw failure(path, "follow the link")
            }
            current = destination.hasPrefix("/")
                ? destination
                : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(destination).path
        }
        throw PrefsError("\(path): too many levels of symbolic links")
    }

    private static func replace(_ target: String, with produce: (OutputSink) throws -> Void, mode: mode_t, shownAs path: String) throws {
        let url = URL(fileURLWithPath: target)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".prefs-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path, "write") }
        // The umask may have narrowed the bits; an existing file's are kept as they were.
        do {
            guard fchmod(descriptor, mode) == 0 else { throw failure(path, "write") }
            let sink = OutputSink(descriptor: descriptor) { errno = $0; return failure(path, "write") }
            try produce(sink)
            try sink.flush()
            guard fsync(descriptor) == 0 else { throw failure(path, "write") }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, target) == 0 else {
            let error = failure(path, "replace")
            unlink(temporary)
            throw error
        }
    }

    /// A FIFO or character device: opened and written in place, no rename.
    private static func stream(_ produce: (OutputSink) throws -> Void, to target: String, shownAs path: String) throws {
        let descriptor = open(target, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, "open") }
        defer { close(descriptor) }
        let sink = OutputSink(descriptor: descriptor) { errno = $0; return failure(path, "write") }
        try produce(sink)
        try sink.flush()
    }

    /// A Unix socket cannot be opened like a file: connect to it and write the stream.
    private static func streamToSocket(_ produce: (OutputSink) throws -> Void, at target: String, shownAs path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(target.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw PrefsError("\(path): the socket's path is too long to connect to")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        #if canImport(Darwin)
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw failure(path, "open") }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw failure(path, "connect to") }
        let sink = OutputSink(descriptor: descriptor) { errno = $0; return failure(path, "write") }
        try produce(sink)
        try sink.flush()
    }

    private static func failure(_ path: String, _ what: String) -> PrefsError {
        PrefsError("\(path): cannot \(what): \(String(cString: strerror(errno)))")
    }
}
#endif
