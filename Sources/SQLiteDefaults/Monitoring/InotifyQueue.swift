#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One inotify instance: adds and removes watches and reads what happened, nothing more.
///
/// The kernel allows 128 instances per user across all of that user's processes (and a
/// larger number of watches), so a process makes one of these, shared by every store (see
/// ``FileMonitor``). The descriptor is never closed: it lives as long as the process.
struct InotifyQueue: Sendable {
    /// One event as the kernel reported it.
    struct Event {
        let watch: Int32
        let mask: UInt32
        /// The name within a watched directory; empty for a watch on a file.
        let name: String
    }

    let descriptor: Int32

    /// - Returns: nil (with `errno` set) when the kernel refuses a new instance, for example
    ///   at the per-user instance limit.
    init?() {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    /// Adds (or, for a path already watched, replaces) a watch. Returns the watch descriptor,
    /// or the `errno` of the refusal (`ENOENT` for a missing file, `ENOSPC` at the watch limit).
    func addWatch(_ path: String, mask: UInt32) -> Result<Int32, Errno> {
        let watch = inotify_add_watch(descriptor, path, mask)
        return watch >= 0 ? .success(watch) : .failure(Errno(errno))
    }

    func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// Every event queued now (the descriptor is non-blocking).
    func drain(into buffer: inout [UInt8]) -> [Event] {
        var events: [Event] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len].
                while offset + 16 <= count {
                    let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, count)]
                    offset += 16 + length
                    events.append(Event(watch: watch, mask: mask,
                                        name: String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)))
                }
            }
        }
        return events
    }

    /// An `errno` value, for the reason a watch was refused.
    struct Errno: Error, Equatable {
        let code: Int32
        init(_ code: Int32) { self.code = code }
        var description: String { String(cString: strerror(code)) }
    }
}
