#if os(Linux) && canImport(Glibc)
import CSQLiteDefaults
import Glibc
import Synchronization

/// The Linux ``FileEventSource``: one inotify instance for the watches and one eventfd for
/// wake-ups, waited on together with `ppoll`. The only file of the package that calls inotify,
/// eventfd or `prctl`.
///
/// The kernel allows 128 inotify instances per user across all of that user's processes (and
/// a larger number of watches), so the process makes one of these, shared by every store (see
/// ``FileMonitor``). The instance is made when the first store asks for file events, so a
/// process whose stores all poll holds none. Its descriptors are never closed: they live as
/// long as the process.
final class InotifyEventSource: FileEventSource, @unchecked Sendable {
    // @unchecked Sendable: `wakeDescriptor` and `buffer` are never reassigned; `buffer`'s memory
    // is read and written only by `wait`, which only the monitor thread calls (see
    // FileEventSource); the inotify instance is behind `instance`'s Mutex and `descriptor`.
    private let wakeDescriptor: Int32
    /// Where events are read into: made once (it lives as long as the process), so a wake-up
    /// allocates nothing for it. Larger than one event with the longest name, so a read never
    /// fails with EINVAL.
    private let buffer: UnsafeMutableRawBufferPointer
    /// The inotify instance once asked for, or why the kernel refused it (the per-user
    /// instance limit, say); nil before any store asked for file events.
    private let instance = Mutex<Result<Int32, WatchRefusal>?>(nil)
    /// The instance's descriptor for `wait` (-1 until made: `ppoll` ignores it). A registration
    /// that makes it wakes the thread afterwards, so the next wait includes it.
    private let descriptor = Atomic<Int32>(-1)

    /// The source, or why the kernel refused its wake-up descriptor.
    static func make() -> Result<InotifyEventSource, WatchRefusal> {
        // Close-on-exec and non-blocking in one call, so a child spawned meanwhile by another
        // thread never inherits it.
        let wakeDescriptor = csqlitedefaults_eventfd()
        guard wakeDescriptor >= 0 else {
            return .failure(refusal("the monitor's wake-up descriptor could not be made"))
        }
        return .success(InotifyEventSource(wakeDescriptor: wakeDescriptor))
    }

    private init(wakeDescriptor: Int32) {
        self.wakeDescriptor = wakeDescriptor
        buffer = .allocate(byteCount: 64 * 1024, alignment: 8)
    }

    /// The inotify instance, made at the first call (a refusal is kept: it is not tried again).
    private func inotify() -> Result<Int32, WatchRefusal> {
        instance.withLock { instance in
            if let instance { return instance }
            let made = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            let result: Result<Int32, WatchRefusal> = made >= 0 ? .success(made) : .failure(Self.refusal("inotify_init1"))
            if made >= 0 { descriptor.store(made, ordering: .releasing) }
            instance = result
            return result
        }
    }

    var unavailableReason: String? {
        if case .failure(let refusal) = inotify() { return refusal.description }
        return nil
    }

    func addWatch(_ path: String, for kind: WatchKind) -> Result<Int32, WatchRefusal> {
        let inotify: Int32
        switch self.inotify() {
        case .success(let made): inotify = made
        case .failure(let refusal): return .failure(refusal)
        }
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
        let inotify = descriptor.load(ordering: .acquiring)
        guard inotify >= 0 else { return }
        _ = inotify_rm_watch(inotify, watch)
    }

    func prepareWaitingThread() {
        // Linux lets a thread's timed wait run up to its timer slack (50 µs by default) late;
        // the first re-check is due microseconds after a wake-up.
        csqlitedefaults_precise_timers()
    }

    func wait(timeout: UInt64?) -> [FileEvent] {
        let inotify = descriptor.load(ordering: .acquiring)
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)]
        _ = csqlitedefaults_poll(&descriptors, 2, timeout.map { Int64(clamping: $0) } ?? -1)
        if descriptors[0].revents != 0 {
            var count: UInt64 = 0
            _ = read(wakeDescriptor, &count, 8)
        }
        return inotify >= 0 && descriptors[1].revents != 0 ? drain(inotify) : []
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// Every event queued now (the descriptor is non-blocking).
    private func drain(_ inotify: Int32) -> [FileEvent] {
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
