import CSQLiteDefaults
import Foundation
import Logging
import Synchronization

/// Why the monitor calls a watched file's handler.
enum MonitorEvent: Sendable {
    /// One of the database's files was written (or a re-check after such a write).
    case filesChanged
    /// The database file itself was deleted, moved or created anew, or the directory went away.
    case databaseFileEvent
    /// Nothing reported the file for a whole safety-poll (or polling) interval.
    case safetyPoll
}

/// What a handler found, which decides when the monitor looks at that file next.
enum MonitorOutcome: Sendable {
    /// Another connection's commit was seen and handled.
    case sawCommit
    /// Nothing new: maybe a commit not yet published; look again shortly.
    case nothingNew
    /// Only this store's own commits since the last look: what woke the monitor was almost
    /// surely its own write, so no quick re-checks (they would contend with the writer); the
    /// slower ones still catch another writer's commit that was being written at the same time.
    case ownCommits
    /// The store was busy and could not look: look again in a millisecond.
    case busy
}

/// How a file is watched.
enum WatchMode: Sendable, Equatable {
    /// inotify, with a polling fallback when the kernel refuses it.
    case fileEvents
    /// `PRAGMA data_version` every `interval`, no inotify.
    case polling(interval: Duration)
}

/// Keeps one file registered with the ``FileMonitor``; ``cancel()`` (or release) unregisters it.
/// Safe from any thread, the monitor's own thread included (inside a handler).
final class MonitorRegistration: Sendable {
    let id: UInt64
    /// Whether this file fell back to polling (inotify was refused for it).
    let isPolling: Bool
    private let isCancelled = Atomic<Bool>(false)

    init(id: UInt64, isPolling: Bool) {
        self.id = id
        self.isPolling = isPolling
    }

    func cancel() {
        guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        FileMonitor.shared.unregister(id)
    }

    deinit { cancel() }
}

/// One thread and one inotify instance for every store of the process.
///
/// Every commit in WAL mode appends to `<db>-wal`, so a one-shot inotify watch on that file
/// tells the thread when to look; a watch on the database's directory (one per directory,
/// shared by the files in it) sees the `-wal` created or deleted and the database file itself
/// deleted or replaced. The thread then calls the file's handler, which compares
/// `PRAGMA data_version` and reads the change log. A file that inotify cannot watch (the
/// per-user instance or watch limit, a file system without it) is polled instead, and the
/// first fallback is logged. Handlers run on this thread one at a time, with no lock held.
///
/// Why one-shot watches: a live watch makes the kernel build an event on *every* `write()` to
/// the `-wal` — a commit is several of them — and that cost lands on the writer, this
/// process's own writes included. A one-shot watch costs one event, then nothing until the
/// thread re-arms it; the re-checks that follow every wake-up cover a commit written meanwhile.
///
/// The thread and its descriptors live as long as the process: stores come and go by
/// registering and unregistering, so releasing a store anywhere closes nothing another thread
/// may still be using.
final class FileMonitor: Sendable {
    static let shared = FileMonitor()

    /// How often a file is polled when inotify cannot watch it.
    static let fallbackPollInterval: Duration = .milliseconds(100)
    /// Structural directory events only: a directory watch with `IN_MODIFY` would make every
    /// write to any file in the directory build an event.
    static let directoryMask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
    /// Nanoseconds before each quick re-check of a wake-up that found nothing new (about 5,
    /// 15, 35, 75, 155 and 315 µs after it). A commit writes its frames to the `-wal` — the
    /// first write wakes us — and publishes them microseconds later, so an early re-check
    /// usually finds it (isolated external commits: median 0.14 → 0.10 ms against 20 µs first).
    /// Only wake-ups that were not this store's own commits get them.
    static let quickRechecks: [UInt64] = [5_000, 10_000, 20_000, 40_000, 80_000, 160_000]
    /// Nanoseconds before each later re-check, each after the one before (about 1, 4, 14 and
    /// 114 ms after a wake-up): a writer descheduled between writing its frames and publishing
    /// its commit is still seen without waiting for the safety poll.
    static let slowRechecks: [UInt64] = [1_000_000, 3_000_000, 10_000_000, 100_000_000]
    /// After a wake-up that found nothing new (in practice: this process's own commits), the
    /// file's next event waits this long, so a busy writer in this process wakes the thread at
    /// most once per cooldown. A look that found another connection's commit clears it: a
    /// stream of external commits is followed at full speed.
    static let cooldown: UInt64 = 1_000_000
    /// The least time between two safety polls of files that share a safety-poll interval
    /// (or the interval itself, if shorter). The safety poll is a net under inotify, which on a
    /// local file system does not lose events (an overflow makes every file look); it need not
    /// cost each file a look every interval. One store is still looked at every interval (2 s
    /// by default); 10,000 idle stores cost what one does, not 5,000 looks a second — each file
    /// is then looked at in turn, about every 5½ hours.
    static let safetySpacing: UInt64 = 2_000_000_000

    private let state = Mutex(State())
    /// The thread's wake-up descriptor (an eventfd), made once, never closed.
    private let wake: Int32

    private init() {
        wake = csqlitedefaults_eventfd()
    }

    // MARK: Registration

    /// Starts watching the database at `realPath` (symbolic links already resolved: SQLite
    /// puts `-wal` and `-shm` beside the real file). `handler` runs on the monitor thread.
    func register(realPath: String, mode: WatchMode, safetyPoll: Duration, logger: Logger,
                  handler: @escaping @Sendable (MonitorEvent) -> MonitorOutcome) -> MonitorRegistration {
        let url = URL(fileURLWithPath: realPath)
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        let now = Self.now()
        let (id, fallback, polling) = state.withLock { state -> (UInt64, String?, Bool) in
            let id = state.nextID
            state.nextID += 1
            var file = WatchedFile(directory: directory, name: name, handler: handler,
                                   safetyPoll: Self.nanoseconds(safetyPoll), nextSafety: 0)
            var fallback: String?
            if case .polling(let interval) = mode {
                file.pollInterval = Self.nanoseconds(interval)
            } else if wake < 0 {
                fallback = "the monitor's wake-up descriptor could not be made"
            } else if let inotify = state.inotify(&fallback) {
                switch state.directoryWatch(directory, inotify: inotify) {
                case .success(let watch):
                    file.directoryWatch = watch
                    state.directoryFiles[watch, default: [:]][name, default: []].append(id)
                case .failure(let error):
                    fallback = "cannot watch \(directory): \(error.description)"
                }
            }
            if fallback != nil { file.pollInterval = Self.nanoseconds(Self.fallbackPollInterval) }
            state.safetyFiles[file.safetyPoll, default: 0] += 1
            if let pollInterval = file.pollInterval {
                file.nextSafety = FileMonitor.deadline(after: pollInterval, from: now)
            } else {
                file.nextSafety = state.safetySlot(interval: file.safetyPoll, now: now)
            }
            state.files[id] = file
            if file.pollInterval == nil { state.armWalWatch(id) }
            state.plan(id)
            state.startThreadIfNeeded()
            let polling = state.files[id]?.pollInterval != nil
            if let reason = fallback ?? state.files[id]?.fallbackReason, !state.loggedFallback {
                state.loggedFallback = true
                return (id, reason, polling)
            }
            return (id, nil, polling)
        }
        if let fallback {
            logger.warning("SQLiteDefaults: inotify cannot be used; changes by other connections are found by polling instead (logged once per process)",
                           metadata: ["path": "\(realPath)", "reason": "\(fallback)",
                                      "interval": "\(Self.fallbackPollInterval)"])
        }
        signal()
        return MonitorRegistration(id: id, isPolling: polling)
    }

    func unregister(_ id: UInt64) {
        state.withLock { state in state.remove(id) }
    }

    /// The number of registered files, for tests and benchmarks.
    var registeredCount: Int { state.withLock { $0.files.count } }

    private func signal() {
        guard wake >= 0 else { return }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    // MARK: The thread

    fileprivate func run() {
        csqlitedefaults_precise_timers()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let (inotify, deadline) = state.withLock { state in (state.inotifyQueue?.descriptor ?? -1, state.earliestDeadline()) }
            var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)]
            let now = Self.now()
            if deadline > now {
                let wait = deadline == .max ? -1 : Int64(clamping: deadline - now)
                _ = csqlitedefaults_poll(&descriptors, 2, wait)
            }
            if descriptors[0].revents != 0 {
                var count: UInt64 = 0
                _ = read(wake, &count, 8)
            }
            if descriptors[1].revents != 0, inotify >= 0 {
                let events = InotifyQueue(existing: inotify).drain(into: &buffer)
                if !events.isEmpty {
                    let now = Self.now()
                    state.withLock { state in state.apply(events, now: now) }
                }
            }
            let now2 = Self.now()
            let due = state.withLock { state in state.takeDue(now: now2) }
            for run in due {
                let outcome = run.handler(run.event)
                let finished = Self.now()
                state.withLock { state in state.schedule(run, outcome: outcome, now: finished) }
            }
        }
    }

    // MARK: Time

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// `interval` after `now`, rounded up to a tenth of the interval (at most 100 ms): polls of
    /// many files fall on shared instants, so 10,000 stores wake the thread about ten times a
    /// second for their safety polls, not five thousand times.
    static func deadline(after interval: UInt64, from now: UInt64) -> UInt64 {
        let granularity = max(1_000_000, min(interval / 10, 100_000_000))
        return ((now + interval) / granularity + 1) * granularity
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 1_000_000 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

extension InotifyQueue {
    /// The queue whose descriptor the monitor already holds.
    fileprivate init(existing descriptor: Int32) {
        self.descriptor = descriptor
    }
}

/// One handler call the thread is about to make.
private struct DueRun {
    let id: UInt64
    let event: MonitorEvent
    /// Whether a fresh inotify event (not a re-check or a poll) caused it.
    let fromEvent: Bool
    let handler: @Sendable (MonitorEvent) -> MonitorOutcome
}

/// What the monitor knows of one registered database.
private struct WatchedFile {
    let directory: String
    let name: String
    var walName: String { name + "-wal" }
    let handler: @Sendable (MonitorEvent) -> MonitorOutcome
    let safetyPoll: UInt64
    /// Set when this file is polled (asked for, or inotify refused it).
    var pollInterval: UInt64?
    var fallbackReason: String?
    var directoryWatch: Int32?
    /// The armed one-shot watch on the `-wal`; nil while none is armed.
    var walWatch: Int32?
    /// The `-wal` was missing when last armed: not tried again until the directory watch sees
    /// it created (saves a failing system call per safety poll of an idle file).
    var walMissing = false
    /// An event seen and not yet handled.
    var pending: MonitorEvent?
    /// When the next event-driven check or re-check runs; nil when none is planned.
    var nextRun: UInt64?
    /// Delays still to come after the current wake-up, and how many of them are quick.
    var rechecks: ArraySlice<UInt64> = []
    var quickLeft = 0
    /// When the safety poll (or, when polling, the next poll) is due. Only a safety poll (or a
    /// poll) moves it, so neither unrelated events in the directory nor a stream of commits
    /// can postpone it.
    var nextSafety: UInt64
    var cooldownUntil: UInt64 = 0
    var isRunning = false

    init(directory: String, name: String, handler: @escaping @Sendable (MonitorEvent) -> MonitorOutcome,
         safetyPoll: UInt64, nextSafety: UInt64) {
        self.directory = directory
        self.name = name
        self.handler = handler
        self.safetyPoll = max(safetyPoll, 1_000_000)
        self.nextSafety = nextSafety
    }

    var deadline: UInt64 { min(nextRun ?? .max, nextSafety) }
}

private struct State {
    var files: [UInt64: WatchedFile] = [:]
    var nextID: UInt64 = 1
    var inotifyQueue: InotifyQueue?
    var inotifyRefused: String?
    var loggedFallback = false
    var threadStarted = false
    /// Directory watches by path, and the files of each (by database file name).
    var directoryWatches: [String: Int32] = [:]
    var directoryFiles: [Int32: [String: [UInt64]]] = [:]
    /// Armed one-shot `-wal` watches and the files waiting on each (two stores of this process
    /// on one file share the kernel's watch).
    var walWatches: [Int32: [UInt64]] = [:]
    /// Per safety-poll interval: the last safety-poll time handed out (see `safetySpacing`),
    /// and how many registered files have that interval.
    var safetySlots: [UInt64: UInt64] = [:]
    var safetyFiles: [UInt64: Int] = [:]
    /// When files want their next look (see `DeadlineHeap`): every change of a file's
    /// `deadline` is followed by `plan(_:)`.
    var deadlines = DeadlineHeap()

    /// Records the file's current deadline in the plan (a running file is planned when its
    /// run is scheduled).
    mutating func plan(_ id: UInt64) {
        guard let file = files[id], !file.isRunning, file.deadline != .max else { return }
        deadlines.push(file.deadline, id)
    }

    /// Whether a planned entry still says when its file wants a look.
    private func isCurrent(_ entry: DeadlineHeap.Entry) -> Bool {
        guard let file = files[entry.id] else { return false }
        return !file.isRunning && file.deadline == entry.deadline
    }

    mutating func inotify(_ refusal: inout String?) -> InotifyQueue? {
        if let inotifyQueue { return inotifyQueue }
        if let inotifyRefused { refusal = inotifyRefused; return nil }
        if let queue = InotifyQueue() {
            inotifyQueue = queue
            return queue
        }
        inotifyRefused = "inotify_init1: \(String(cString: strerror(errno)))"
        refusal = inotifyRefused
        return nil
    }

    mutating func directoryWatch(_ directory: String, inotify: InotifyQueue) -> Result<Int32, InotifyQueue.Errno> {
        if let watch = directoryWatches[directory] { return .success(watch) }
        let result = inotify.addWatch(directory, mask: FileMonitor.directoryMask)
        if case .success(let watch) = result { directoryWatches[directory] = watch }
        return result
    }

    /// When a file watched through inotify, with this safety-poll interval, is looked at next
    /// if nothing happens: an interval from now, and `safetySpacing` after the previous file's.
    /// The timeline reaches at most one spacing per file ahead, so when most stores close the
    /// rest are soon looked at every interval again.
    mutating func safetySlot(interval: UInt64, now: UInt64) -> UInt64 {
        let spacing = min(interval, FileMonitor.safetySpacing)
        let horizon = now + UInt64(max(safetyFiles[interval] ?? 1, 1)) * spacing
        let slot = max(now + interval, min(safetySlots[interval] ?? 0, horizon) + spacing)
        safetySlots[interval] = slot
        return slot
    }

    mutating func startThreadIfNeeded() {
        guard !threadStarted else { return }
        threadStarted = true
        // A plain detached pthread: it runs for the life of the process and owns no Foundation
        // or Dispatch state. `FileMonitor.shared` is a static let, so the thread may use it for ever.
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { _ in
            FileMonitor.shared.run()
            return nil
        }, nil)
        if created == 0 {
            pthread_detach(thread)
        } else {
            threadStarted = false  // tried again at the next registration; until then files are only registered
        }
    }

    /// Arms the one-shot watch on the file's `-wal` (a missing `-wal` is armed when the
    /// directory watch sees it created). A refusal other than "no such file" means this file
    /// cannot be watched: it is polled from now on.
    mutating func armWalWatch(_ id: UInt64) {
        guard var file = files[id], file.pollInterval == nil, file.walWatch == nil, !file.walMissing, let inotifyQueue else { return }
        switch inotifyQueue.addWatch(file.directory + "/" + file.walName, mask: UInt32(IN_MODIFY) | UInt32(IN_ONESHOT)) {
        case .success(let watch):
            file.walWatch = watch
            if walWatches[watch, default: []].contains(id) == false { walWatches[watch, default: []].append(id) }
        case .failure(let error) where error.code == ENOENT:
            file.walMissing = true
        case .failure(let error):
            file.pollInterval = FileMonitor.nanoseconds(FileMonitor.fallbackPollInterval)
            file.fallbackReason = "cannot watch \(file.directory)/\(file.walName): \(error.description)"
            file.nextSafety = min(file.nextSafety, FileMonitor.deadline(after: file.pollInterval!, from: FileMonitor.now()))
        }
        files[id] = file
        plan(id)
    }

    mutating func remove(_ id: UInt64) {
        guard let file = files.removeValue(forKey: id) else { return }
        safetyFiles[file.safetyPoll, default: 1] -= 1
        if safetyFiles[file.safetyPoll] == 0 {
            safetyFiles[file.safetyPoll] = nil
            safetySlots[file.safetyPoll] = nil
        }
        if let watch = file.walWatch { dropWalWatch(watch, for: id) }
        if let watch = file.directoryWatch {
            directoryFiles[watch]?[file.name]?.removeAll { $0 == id }
            if directoryFiles[watch]?[file.name]?.isEmpty == true { directoryFiles[watch]?[file.name] = nil }
            if directoryFiles[watch]?.isEmpty == true {
                directoryFiles[watch] = nil
                directoryWatches = directoryWatches.filter { $0.value != watch }
                inotifyQueue?.removeWatch(watch)
            }
        }
    }

    private mutating func dropWalWatch(_ watch: Int32, for id: UInt64) {
        walWatches[watch]?.removeAll { $0 == id }
        if walWatches[watch]?.isEmpty == true {
            walWatches[watch] = nil
            inotifyQueue?.removeWatch(watch)
        }
    }

    /// The earliest deadline of a file not running now (`.max`: none); drops stale plan entries.
    mutating func earliestDeadline() -> UInt64 {
        while let first = deadlines.first {
            if isCurrent(first) { return first.deadline }
            deadlines.popFirst()
        }
        return .max
    }

    private mutating func mark(_ id: UInt64, _ event: MonitorEvent, now: UInt64) {
        guard var file = files[id] else { return }
        if file.pending != .databaseFileEvent { file.pending = event }
        file.nextRun = min(file.nextRun ?? .max, max(now, file.cooldownUntil))
        files[id] = file
        plan(id)
    }

    mutating func apply(_ events: [InotifyQueue.Event], now: UInt64) {
        for event in events {
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                // Events were lost: every file looks.
                for id in files.keys { mark(id, .databaseFileEvent, now: now) }
                continue
            }
            if let ids = walWatches[event.watch] {
                // The one-shot fired (IN_MODIFY), or the watch went away with its file (IN_IGNORED):
                // either way it is no longer armed.
                walWatches[event.watch] = nil
                for id in ids where files[id]?.walWatch == event.watch {
                    files[id]?.walWatch = nil
                    if event.mask & UInt32(IN_MODIFY) != 0 { mark(id, .filesChanged, now: now) }
                }
                continue
            }
            guard let byName = directoryFiles[event.watch] else { continue }
            if event.mask & UInt32(IN_IGNORED) != 0 {
                // The directory itself is gone: its files can only be polled now.
                directoryFiles[event.watch] = nil
                directoryWatches = directoryWatches.filter { $0.value != event.watch }
                for id in byName.values.joined() {
                    files[id]?.directoryWatch = nil
                    files[id]?.pollInterval = FileMonitor.nanoseconds(FileMonitor.fallbackPollInterval)
                    mark(id, .databaseFileEvent, now: now)
                }
                continue
            }
            let name = event.name
            if let ids = byName[name] {
                let structural = event.mask & UInt32(IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE) != 0
                for id in ids { mark(id, structural ? .databaseFileEvent : .filesChanged, now: now) }
            } else if name.hasSuffix("-wal"), let ids = byName[String(name.dropLast(4))] {
                for id in ids {
                    files[id]?.walMissing = false
                    // A new -wal is a new inode: an armed watch (if any) is on the old one.
                    if event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, let old = files[id]?.walWatch {
                        files[id]?.walWatch = nil
                        dropWalWatch(old, for: id)
                    }
                    mark(id, .filesChanged, now: now)
                }
            } else if name.hasSuffix("-journal"), let ids = byName[String(name.dropLast(8))] {
                for id in ids { mark(id, .filesChanged, now: now) }
            }
        }
    }

    /// The handler calls due now; their files are marked running (and their `-wal` watch
    /// re-armed first, so a commit that starts from now on raises an event of its own).
    mutating func takeDue(now: UInt64) -> [DueRun] {
        var dueIDs: [UInt64] = []
        var taken = Set<UInt64>()
        while let first = deadlines.first, first.deadline <= now {
            deadlines.popFirst()
            // A file planned twice with one deadline is taken once.
            if isCurrent(first), taken.insert(first.id).inserted { dueIDs.append(first.id) }
        }
        var due: [DueRun] = []
        due.reserveCapacity(dueIDs.count)
        for id in dueIDs {
            guard var file = files.removeValue(forKey: id) else { continue }
            let event: MonitorEvent
            let fromEvent = file.pending != nil
            if let pending = file.pending {
                event = pending
            } else if let nextRun = file.nextRun, nextRun <= now {
                event = .filesChanged
            } else {
                event = .safetyPoll
            }
            file.pending = nil
            file.nextRun = nil
            file.isRunning = true
            files[id] = file
            armWalWatch(id)
            due.append(DueRun(id: id, event: event, fromEvent: fromEvent, handler: file.handler))
        }
        return due
    }

    /// Plans the file's next look after a handler run.
    mutating func schedule(_ run: DueRun, outcome: MonitorOutcome, now: UInt64) {
        guard var file = files[run.id] else { return }  // unregistered meanwhile
        file.isRunning = false
        if let pollInterval = file.pollInterval {
            file.nextSafety = FileMonitor.deadline(after: pollInterval, from: now)
        } else if file.nextSafety <= now {
            file.nextSafety = safetySlot(interval: file.safetyPoll, now: now)
        }
        if file.pollInterval == nil {
            if run.fromEvent {
                file.rechecks = ArraySlice(FileMonitor.quickRechecks + FileMonitor.slowRechecks)
                file.quickLeft = FileMonitor.quickRechecks.count
                file.cooldownUntil = now + FileMonitor.cooldown
            }
            switch outcome {
            case .sawCommit, .ownCommits:
                if case .sawCommit = outcome { file.cooldownUntil = 0 }
                if file.quickLeft > 0 {
                    file.rechecks = file.rechecks.dropFirst(file.quickLeft)
                    file.quickLeft = 0
                }
            case .nothingNew, .busy:
                break
            }
        }
        var delay: UInt64?
        if case .busy = outcome {
            delay = 1_000_000
        } else if let next = file.rechecks.first {
            file.rechecks = file.rechecks.dropFirst()
            if file.quickLeft > 0 { file.quickLeft -= 1 }
            delay = next
        }
        if let delay {
            let at = now + delay
            file.nextRun = min(file.nextRun ?? .max, at)
        }
        files[run.id] = file
        plan(run.id)
    }
}
