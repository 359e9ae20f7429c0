import Foundation
import Synchronization

/// Wakes the store when another connection may have committed, without busy polling.
///
/// Every commit in WAL mode appends to `<db>-wal`, so a one-shot inotify watch on that file
/// tells a sleeping thread when to look; a watch on the database's directory sees the `-wal`
/// being created or deleted and the database file itself being deleted or replaced. The
/// thread then asks the store to compare `PRAGMA data_version` and read the change log.
/// A slow safety poll covers file systems where inotify is silent (network mounts).
///
/// Why one-shot: a live watch makes the kernel build an event on *every* `write()` to the
/// `-wal` — a commit is several of them — and that cost lands on the writer, this store's
/// own writes included (measured: about 15% of an autocommit `set`). A one-shot watch costs
/// one event, then nothing until the thread re-arms it, which it does as soon as it has read
/// the event; the re-checks that follow every wake-up cover a commit written meanwhile.
final class ExternalChangeMonitor: Sendable {
    enum Event: Sendable {
        /// One of the database's files was written.
        case filesChanged
        /// The database file itself was deleted, renamed or created anew.
        case databaseFileEvent
        /// Nothing happened for a whole safety-poll interval.
        case safetyPoll
    }

    /// What a check found, which decides when the monitor looks next.
    enum Outcome: Sendable {
        /// Another connection's commit was seen and handled.
        case sawCommit
        /// Nothing new: maybe nothing happened (our own commit), maybe a commit is still being
        /// published; look again shortly, a few times.
        case nothingNew
        /// The store was busy and could not look: look again in a millisecond.
        case busy
    }

    private let inotify: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let thread = Mutex<pthread_t?>(nil)

    /// Starts watching the directory of `databasePath`; `handler` runs on the monitor's thread.
    init(databasePath: String, safetyPoll: Duration, handler: @escaping @Sendable (Event) -> Outcome) throws {
        let url = URL(fileURLWithPath: databasePath)
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent

        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            throw DefaultsError(.ioError, "cannot watch \(directory) for changes by other processes: \(String(cString: strerror(errno)))", path: databasePath)
        }
        let directoryWatch = inotify_add_watch(inotify, directory, MonitorLoop.directoryMask)
        guard directoryWatch >= 0 else {
            let reason = String(cString: strerror(errno))
            close(inotify)
            throw DefaultsError(.ioError, "cannot watch \(directory) for changes by other processes: \(reason)", path: databasePath)
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(inotify)
            throw DefaultsError(.ioError, "cannot create the monitor's wake-up pipe: \(String(cString: strerror(errno)))", path: databasePath)
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        self.inotify = inotify
        self.wakeRead = pipeEnds[0]
        self.wakeWrite = pipeEnds[1]

        let loop = MonitorLoop(inotify: inotify, wake: pipeEnds[0], directory: directory, directoryWatch: directoryWatch, name: name,
                               timeoutMilliseconds: Int32(clamping: safetyPoll.components.seconds * 1000 + safetyPoll.components.attoseconds / 1_000_000_000_000_000),
                               handler: handler)
        let context = Unmanaged.passRetained(loop).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<MonitorLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<MonitorLoop>.fromOpaque(context).release()
            close(inotify); close(pipeEnds[0]); close(pipeEnds[1])
            throw DefaultsError(.ioError, "cannot start the external-change monitor thread (error \(created))", path: databasePath)
        }
        self.thread.withLock { $0 = thread }
    }

    /// Stops the thread and closes its file descriptors. Idempotent.
    func stop() {
        guard let thread = self.thread.withLock({ thread in defer { thread = nil }; return thread }) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if pthread_equal(thread, pthread_self()) != 0 {
            // The last reference went away on the monitor thread itself (inside a callback):
            // it cannot join itself; it exits when the handler returns.
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
        close(inotify)
        close(wakeRead)
        close(wakeWrite)
    }

    deinit { stop() }
}

/// The monitor thread's loop; owns nothing but borrowed descriptors, which `stop()` closes
/// only after the loop has ended.
private final class MonitorLoop {
    /// Structural events only: a directory watch that also asked for `IN_MODIFY` would make
    /// every write to any file in the directory build an event.
    static let directoryMask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

    let inotify: Int32
    let wake: Int32
    let directory: String
    let directoryWatch: Int32
    let name: String
    let walName: String
    let timeoutMilliseconds: Int32
    let handler: @Sendable (ExternalChangeMonitor.Event) -> ExternalChangeMonitor.Outcome
    /// The watch descriptor of the armed one-shot `-wal` watch, nil while none is armed.
    private var walWatch: Int32?
    /// Set when the `-wal` cannot be watched by itself (the kernel's watch limit): the
    /// directory watch then also reports writes, which costs writers more but misses nothing.
    private var watchesWritesThroughDirectory = false

    init(inotify: Int32, wake: Int32, directory: String, directoryWatch: Int32, name: String, timeoutMilliseconds: Int32,
         handler: @escaping @Sendable (ExternalChangeMonitor.Event) -> ExternalChangeMonitor.Outcome) {
        self.inotify = inotify
        self.wake = wake
        self.directory = directory
        self.directoryWatch = directoryWatch
        self.name = name
        self.walName = name + "-wal"
        self.timeoutMilliseconds = timeoutMilliseconds
        self.handler = handler
        armWalWatch()
    }

    /// Milliseconds to wait before each later re-check of a wake-up, each after the one before
    /// (so about 1, 4, 14 and 114 ms after it): a writer descheduled between writing its
    /// frames and publishing its commit is still seen without waiting for the safety poll.
    static let recheckDelays: ArraySlice<Int32> = [1, 3, 10, 100]
    /// Microseconds before each quick re-check of a wake-up that found nothing new: the
    /// commit that woke us is usually published within a few hundred microseconds.
    static let quickRecheckMicroseconds: [UInt32] = [50, 150, 300]
    /// Milliseconds the thread stays off the inotify queue after each wake-up.
    static let cooldownMilliseconds: Int32 = 1

    /// Arms the one-shot watch on the `-wal` (a missing `-wal` is armed when the directory
    /// watch sees it created).
    private func armWalWatch() {
        guard walWatch == nil, !watchesWritesThroughDirectory else { return }
        let watch = inotify_add_watch(inotify, directory + "/" + walName, UInt32(IN_MODIFY) | UInt32(IN_ONESHOT))
        if watch >= 0 {
            walWatch = watch
        } else if errno != ENOENT {
            watchesWritesThroughDirectory = true
            _ = inotify_add_watch(inotify, directory, Self.directoryMask | UInt32(IN_MODIFY))
        }
    }

    func run() {
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // A writer appends its frames to the -wal (the inotify event) *before* it publishes the
        // commit in the wal-index; a check in between sees nothing new. And a commit whose
        // frames were all written while the one-shot watch was down raised no event. So every
        // wake-up is followed by re-checks: quick ones while nothing new is seen, then the
        // `recheckDelays`, before the thread falls back to the safety poll.
        var rechecks: ArraySlice<Int32> = []
        while true {
            armWalWatch()
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            let ready = poll(&descriptors, 2, rechecks.first ?? timeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            if ready == 0 {
                let outcome = handler(rechecks.isEmpty ? .safetyPoll : .filesChanged)
                rechecks = rechecks.dropFirst()
                if case .busy = outcome { rechecks = [1] + rechecks }
                continue
            }
            let (filesChanged, databaseFileEvent) = readEvents(into: &buffer)
            guard databaseFileEvent || filesChanged else { continue }
            // Re-armed before looking, so a commit that starts writing from now on raises an
            // event of its own, whatever this check finds.
            armWalWatch()
            var outcome = handler(databaseFileEvent ? .databaseFileEvent : .filesChanged)
            for delay in Self.quickRecheckMicroseconds {
                guard case .nothingNew = outcome else { break }
                usleep(delay)
                outcome = handler(.filesChanged)
            }
            rechecks = Self.recheckDelays
            if case .busy = outcome { rechecks = [1] + rechecks }
            // Cool down before waiting on inotify again: a busy writer (ourselves, most
            // often) then wakes this thread at most once per cooldown; an event raised
            // meanwhile waits in the queue and is handled right after.
            var wakeOnly = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
            if poll(&wakeOnly, 1, Self.cooldownMilliseconds) > 0 { return }
            rechecks = [0] + rechecks.dropFirst()  // the cooldown was the first re-check's wait
        }
    }

    /// Drains the inotify queue. Returns whether a database file was written and whether the
    /// database file itself was deleted, moved or created.
    private func readEvents(into buffer: inout [UInt8]) -> (filesChanged: Bool, databaseFileEvent: Bool) {
        var filesChanged = false
        var databaseFileEvent = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + 16 <= count {
                    let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, count)]
                    offset += 16 + length
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        filesChanged = true
                        databaseFileEvent = true
                        continue
                    }
                    if watch == walWatch {
                        // A one-shot watch is gone once it has fired (IN_IGNORED follows).
                        walWatch = nil
                        if mask & UInt32(IN_MODIFY) != 0 { filesChanged = true }
                        continue
                    }
                    guard watch == directoryWatch else { continue }  // IN_IGNORED of an old -wal watch
                    let eventName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    if eventName == name {
                        filesChanged = true
                        if mask & UInt32(IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE) != 0 { databaseFileEvent = true }
                    } else if eventName == walName {
                        filesChanged = true
                        // A new -wal is a new inode: the armed watch (if any) is on the old one.
                        if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, let old = walWatch {
                            inotify_rm_watch(inotify, old)
                            walWatch = nil
                        }
                    } else if eventName == name + "-journal" {
                        filesChanged = true
                    }
                }
            }
        }
        return (filesChanged, databaseFileEvent)
    }
}
