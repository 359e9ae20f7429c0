#if os(Linux) && canImport(Glibc)
import CSQLiteDefaults
import Glibc

/// The Linux ``FileEventSource``: one inotify instance for the watches and one eventfd for
/// wake-ups, waited on together with `ppoll`. The only file of the package that calls inotify,
/// eventfd or `prctl`.
///
/// The kernel allows 128 inotify instances per user across all of that user's processes (and
/// a larger number of watches), so the process makes one of these, shared by every store (see
/// ``FileMonitor``). Its descriptors are never closed: they live as long as the process.
struct InotifyEventSource: FileEventSource, @unchecked Sendable {
    // @unchecked Sendable: the descriptors are immutable numbers, and `buffer`'s memory is read
    // and written only by `wait`, which only the monitor thread calls (see FileEventSource).
    private let inotify: Int32
    private let wakeDescriptor: Int32
    /// Where events are read into: made once (like the descriptors, it lives as long as the
    /// process), so a wake-up allocates nothing for it. Larger than one event with the longest
    /// name, so a read never fails with EINVAL.
    private let buffer: UnsafeMutableRawBufferPointer

    /// Either the source, or why the kernel refused one (the per-user instance limit, say).
    static func make() -> Result<InotifyEventSource, WatchRefusal> {
        // Close-on-exec and non-blocking in one call each, so a child spawned meanwhile by
        // another thread never inherits them.
        let wakeDescriptor = csqlitedefaults_eventfd()
        guard wakeDescriptor >= 0 else {
            return .failure(refusal("the monitor's wake-up descriptor could not be made (eventfd)"))
        }
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            let refusal = refusal("inotify_init1")
            close(wakeDescriptor)
            return .failure(refusal)
        }
        return .success(InotifyEventSource(inotify: inotify, wakeDescriptor: wakeDescriptor))
    }

    private init(inotify: Int32, wakeDescriptor: Int32) {
        self.inotify = inotify
        self.wakeDescriptor = wakeDescriptor
        buffer = .allocate(byteCount: 64 * 1024, alignment: 8)
    }

    var unavailableReason: String? { nil }

    func addWatch(_ path: String, for kind: WatchKind) -> Result<Int32, WatchRefusal> {
        let mask: UInt32 = switch kind {
        // Structural events only: `IN_MODIFY` on a directory would make every write to any
        // file in it build an event.
        case .directory: UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
        // One-shot: a live watch makes the kernel build an event on every `write()` to the
        // file — a WAL commit is several — and that cost lands on the writer.
        case .nextWrite: UInt32(IN_MODIFY) | UInt32(IN_ONESHOT)
        }
        let watch = inotify_add_watch(inotify, path, mask)
        return watch >= 0 ? .success(watch) : .failure(Self.refusal(nil))
    }

    func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(inotify, watch)
    }

    func prepareWaitingThread() {
        // Linux lets a thread's timed wait run up to its timer slack (50 µs by default) late;
        // the first re-check is due microseconds after a wake-up.
        csqlitedefaults_precise_timers()
    }

    func wait(timeout: UInt64?) -> [FileEvent] {
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)]
        _ = csqlitedefaults_poll(&descriptors, 2, timeout.map { Int64(clamping: $0) } ?? -1)
        if descriptors[0].revents != 0 {
            var count: UInt64 = 0
            _ = read(wakeDescriptor, &count, 8)
        }
        return descriptors[1].revents != 0 ? drain() : []
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Every event queued now (the descriptor is non-blocking).
    private func drain() -> [FileEvent] {
        var events: [FileEvent] = []
        let bytes = UnsafeRawBufferPointer(buffer)
        while true {
            let count = read(inotify, buffer.baseAddress, buffer.count)
            if count <= 0 { break }
            var offset = 0
            // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len].
            while offset + 16 <= count {
                let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, count)]
                offset += 16 + length
                events.append(FileEvent(watch: watch, kinds: Self.kinds(mask),
                                        name: String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)))
            }
        }
        return events
    }

    /// inotify's bits and what each means to the monitor.
    private static let meanings: [(UInt32, FileEventKinds)] = [
        (UInt32(IN_MODIFY), .written), (UInt32(IN_CLOSE_WRITE), .closedAfterWriting), (UInt32(IN_CREATE), .created),
        (UInt32(IN_DELETE), .deleted), (UInt32(IN_MOVED_FROM), .movedOut), (UInt32(IN_MOVED_TO), .movedIn),
        (UInt32(IN_IGNORED), .watchRemoved), (UInt32(IN_Q_OVERFLOW), .overflow),
    ]

    private static func kinds(_ mask: UInt32) -> FileEventKinds {
        var kinds: FileEventKinds = []
        for (bit, kind) in meanings where mask & bit != 0 { kinds.insert(kind) }
        return kinds
    }

    /// The refusal for the current `errno`, after `call` if given.
    private static func refusal(_ call: String?) -> WatchRefusal {
        let code = errno
        let reason = String(cString: strerror(code))
        return WatchRefusal(isMissingFile: code == ENOENT, description: call.map { "\($0): \(reason)" } ?? reason)
    }
}
#endif
