import Foundation
import Synchronization

/// Wakes the store when another connection may have committed, without busy polling.
///
/// Every commit in WAL mode appends to `<db>-wal`, so one inotify watch on the database's
/// directory (which also sees the `-wal` being created, reset or deleted by checkpoints, and
/// the database file itself being deleted or replaced) tells a sleeping thread when to look.
/// The thread then asks the store to compare `PRAGMA data_version` and read the change log.
/// A slow safety poll covers file systems where inotify is silent (network mounts).
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
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
        guard inotify_add_watch(inotify, directory, mask) >= 0 else {
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

        let loop = MonitorLoop(inotify: inotify, wake: pipeEnds[0], name: name,
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
    let inotify: Int32
    let wake: Int32
    let name: String
    let timeoutMilliseconds: Int32
    /// Returns whether it saw another connection's commit.
    let handler: @Sendable (ExternalChangeMonitor.Event) -> ExternalChangeMonitor.Outcome

    init(inotify: Int32, wake: Int32, name: String, timeoutMilliseconds: Int32,
         handler: @escaping @Sendable (ExternalChangeMonitor.Event) -> ExternalChangeMonitor.Outcome) {
        self.inotify = inotify
        self.wake = wake
        self.name = name
        self.timeoutMilliseconds = timeoutMilliseconds
        self.handler = handler
    }

    /// Milliseconds to wait before each re-check after a wake-up that found nothing new.
    static let recheckDelays: ArraySlice<Int32> = [1, 10]
    /// Microseconds before the first re-check of a wake-up that found nothing new.
    static let quickRecheckMicroseconds: UInt32 = 200
    /// Milliseconds the thread stays off the inotify queue after each check.
    static let cooldownMilliseconds: Int32 = 1

    private func next(after outcome: ExternalChangeMonitor.Outcome, pending: ArraySlice<Int32>) -> ArraySlice<Int32> {
        switch outcome {
        case .sawCommit: []
        case .nothingNew: pending
        case .busy: [1] + pending
        }
    }

    func run() {
        var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        // A writer appends its frames to the -wal (the inotify event) *before* it publishes the
        // commit in the wal-index; a check in between sees nothing new. So a wake-up that found
        // no new commit looks again shortly after, before falling back to the safety poll.
        var rechecks: ArraySlice<Int32> = []
        while true {
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
                rechecks = next(after: outcome, pending: rechecks.dropFirst())
                continue
            }
            var filesChanged = false
            var databaseFileEvent = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                buffer.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset + 16 <= count {
                        let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                        let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, count)]
                        let eventName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                        offset += 16 + length
                        if mask & UInt32(IN_Q_OVERFLOW) != 0 { filesChanged = true; databaseFileEvent = true; continue }
                        if eventName == name {
                            filesChanged = true
                            if mask & UInt32(IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE) != 0 { databaseFileEvent = true }
                        } else if eventName == name + "-wal" || eventName == name + "-journal" {
                            filesChanged = true
                        }
                    }
                }
            }
            if databaseFileEvent || filesChanged {
                var outcome = handler(databaseFileEvent ? .databaseFileEvent : .filesChanged)
                if case .nothingNew = outcome {
                    // The commit that woke us is usually published microseconds later.
                    usleep(Self.quickRecheckMicroseconds)
                    outcome = handler(.filesChanged)
                }
                rechecks = next(after: outcome, pending: Self.recheckDelays)
                // Cool down before waiting on inotify again: while nobody waits on the queue, a
                // commit (ours, most often) only queues an event instead of waking this thread,
                // which costs a busy writer more than the commit itself. Events that arrive
                // meanwhile are handled together right after.
                var wakeOnly = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
                if poll(&wakeOnly, 1, Self.cooldownMilliseconds) > 0 { return }
                if !rechecks.isEmpty { rechecks = [0] + rechecks.dropFirst() }  // the cooldown was that wait
            }
        }
    }
}
