import Foundation
import Logging
import Synchronization

/// One thread and one ``FileEventSource`` for every store of the process.
///
/// Stores register their database file; the ``WatchTable`` turns the source's events into looks,
/// the ``MonitorScheduler`` decides when each file looks (re-checks, cool-down, safety polls),
/// and this thread waits on the source until the next deadline, then calls the due files'
/// handlers, which compare `PRAGMA data_version` and read the change log. Handlers run on this
/// thread one at a time, with no lock held.
///
/// On Linux the source is ``InotifyEventSource``. Where there is none — another platform, the
/// kernel refused the eventfd, or `SQLITEDEFAULTS_MONITOR=polling` forced it — it is
/// ``PollingEventSource``, and every file is polled. A file inotify cannot watch (no instance
/// for this user, the watch limit) is polled too; the first fallback of the process is logged.
///
/// The thread and the source live as long as the process: stores come and go by registering
/// and unregistering, so releasing a store anywhere closes nothing another thread may still be
/// using.
final class FileMonitor: Sendable {
    static let shared = FileMonitor()

    /// How often a file is polled when it cannot be watched through file events.
    static let fallbackPollInterval: Duration = .milliseconds(100)

    /// The environment variable that forces the polling monitor for the whole process.
    static let modeVariable = "SQLITEDEFAULTS_MONITOR"

    /// Whether `SQLITEDEFAULTS_MONITOR=polling` forces the portable polling monitor: every
    /// store is polled as if the platform had no file events. Read once, at first use. The test
    /// suite runs the observation tests this way too (`.ci/run`).
    static let forcesPolling: Bool = ProcessInfo.processInfo.environment[modeVariable] == "polling"

    private let state: Mutex<State>
    /// The platform seam, made once, never released.
    private let source: any FileEventSource

    private init() {
        source = Self.makeSource()
        state = Mutex(State())
    }

    private static func makeSource() -> any FileEventSource {
        if forcesPolling { return PollingEventSource(reason: "\(modeVariable)=polling") }
        #if os(Linux) && canImport(Glibc)
        switch InotifyEventSource.make() {
        case .success(let source): return source
        case .failure(let refusal): return PollingEventSource(reason: refusal.description)
        }
        #else
        return PollingEventSource(reason: "no file events on this platform")
        #endif
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
        let source = source
        let (id, fallback, polling) = state.withLock { state -> (UInt64, String?, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.handlers[id] = handler
            state.table.add(id, directory: directory, name: name)
            var fallback: String?
            var pollInterval: UInt64?
            if case .polling(let interval) = mode {
                pollInterval = MonitorScheduler.nanoseconds(interval)
            } else if let reason = source.unavailableReason {
                fallback = reason
            } else if case .failure(let refusal) = state.table.watchDirectory(of: id, source: source) {
                fallback = "cannot watch \(directory): \(refusal.description)"
            }
            if fallback != nil { pollInterval = MonitorScheduler.nanoseconds(Self.fallbackPollInterval) }
            state.scheduler.add(id, safetyPoll: MonitorScheduler.nanoseconds(safetyPoll), pollInterval: pollInterval, now: now)
            if pollInterval == nil, let refusal = state.table.armWalWatch(id, source: source) {
                state.scheduler.startPolling(id, every: MonitorScheduler.nanoseconds(Self.fallbackPollInterval), now: now)
                fallback = refusal.description
            }
            state.startThreadIfNeeded()
            let polling = state.scheduler.isPolled(id)
            guard let fallback, !state.loggedFallback else { return (id, nil, polling) }
            state.loggedFallback = true
            return (id, fallback, polling)
        }
        if let fallback {
            if Self.forcesPolling {
                logger.notice("SQLiteDefaults: \(Self.modeVariable)=polling: changes by other connections are found by polling (logged once per process)",
                              metadata: ["interval": "\(Self.fallbackPollInterval)"])
            } else {
                logger.warning("SQLiteDefaults: inotify cannot be used; changes by other connections are found by polling instead (logged once per process)",
                               metadata: ["path": "\(realPath)", "reason": "\(fallback)",
                                          "interval": "\(Self.fallbackPollInterval)"])
            }
        }
        source.wake()
        return MonitorRegistration(id: id, isPolling: polling)
    }

    func unregister(_ id: UInt64) {
        let source = source
        state.withLock { state in
            state.handlers[id] = nil
            state.scheduler.remove(id)
            state.table.remove(id, source: source)
        }
    }

    // MARK: The thread

    fileprivate func run() {
        let source = source
        source.prepareWaitingThread()
        while true {
            let deadline = state.withLock { $0.scheduler.earliestDeadline() }
            let now = Self.now()
            if deadline > now {
                let events = source.wait(timeout: deadline == .max ? nil : deadline - now)
                if !events.isEmpty {
                    let now = Self.now()
                    state.withLock { state in state.apply(events, source: source, now: now) }
                }
            }
            let now2 = Self.now()
            let due = state.withLock { state in state.takeDue(source: source, now: now2) }
            for entry in due {
                let outcome = entry.handler(entry.run.event)
                let finished = Self.now()
                state.withLock { state in state.scheduler.finished(entry.run, outcome: outcome, now: finished) }
            }
        }
    }

    /// The monotonic clock, in nanoseconds: the scheduler's "now".
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// One handler call the thread is about to make.
private struct Due {
    let run: MonitorScheduler.Run
    let handler: @Sendable (MonitorEvent) -> MonitorOutcome
}

/// The monitor's state, behind its lock: the two halves and what joins them.
private struct State {
    var nextID: UInt64 = 1
    var handlers: [UInt64: @Sendable (MonitorEvent) -> MonitorOutcome] = [:]
    var table = WatchTable()
    var scheduler = MonitorScheduler()
    var loggedFallback = false
    var threadStarted = false

    /// Turns events into looks; files whose directory went away are polled from now on.
    mutating func apply(_ events: [FileEvent], source: any FileEventSource, now: UInt64) {
        Self.route(events, source: source, now: now, table: &table, scheduler: &scheduler)
    }

    /// `apply` with the two halves as separate arguments, so the table's callbacks may change
    /// the scheduler while the table itself is being changed.
    private static func route(_ events: [FileEvent], source: any FileEventSource, now: UInt64,
                              table: inout WatchTable, scheduler: inout MonitorScheduler) {
        let interval = MonitorScheduler.nanoseconds(FileMonitor.fallbackPollInterval)
        table.apply(events, source: source,
                    lost: { scheduler.startPolling($0, every: interval, now: now) },
                    look: { scheduler.mark($0, $1, now: now) })
    }

    /// The handler calls due now. Each file's `-wal` watch is re-armed before its handler runs,
    /// so a commit that starts from now on raises an event of its own.
    mutating func takeDue(source: any FileEventSource, now: UInt64) -> [Due] {
        var due: [Due] = []
        let handlers = handlers
        scheduler.takeDue(now: now) { run in
            if let handler = handlers[run.id] { due.append(Due(run: run, handler: handler)) }
        }
        for entry in due where !scheduler.isPolled(entry.run.id) {
            if table.armWalWatch(entry.run.id, source: source) != nil {
                scheduler.startPolling(entry.run.id, every: MonitorScheduler.nanoseconds(FileMonitor.fallbackPollInterval), now: now)
            }
        }
        return due
    }

    mutating func startThreadIfNeeded() {
        guard !threadStarted else { return }
        threadStarted = true
        #if canImport(Glibc)
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
        #else
        Thread.detachNewThread { FileMonitor.shared.run() }
        #endif
    }
}
