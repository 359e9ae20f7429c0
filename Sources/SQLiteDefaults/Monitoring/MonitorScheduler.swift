/// When the monitor looks at each registered file: re-checks after a wake-up, the cool-down,
/// safety polls (and polls of polled files), all kept in a ``DeadlineHeap``.
///
/// Pure: every method is given "now" (monotonic nanoseconds) and its inputs, and answers what
/// is due or when the next deadline is. It reads no clock, starts no thread and makes no system
/// call, so its tests run on a fake clock (`MonitorSchedulerTests`). ``FileMonitor`` owns one,
/// behind its lock.
struct MonitorScheduler {
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
    /// (or the interval itself, if shorter). The safety poll is a net under file events, which
    /// on a local file system are not lost (an overflow makes every file look); it need not
    /// cost each file a look every interval. One store is still looked at every interval (2 s
    /// by default); 10,000 idle stores cost what one does, not 5,000 looks a second — each file
    /// is then looked at in turn, about every 5½ hours.
    static let safetySpacing: UInt64 = 2_000_000_000
    /// How soon a store that was too busy to look is asked again.
    static let busyRetry: UInt64 = 1_000_000
    /// The shortest safety-poll interval honoured.
    static let shortestSafetyPoll: UInt64 = 1_000_000

    /// One handler call that is due.
    struct Run: Sendable, Equatable {
        let id: UInt64
        let event: MonitorEvent
        /// Whether a fresh file event (not a re-check or a poll) caused it.
        let fromEvent: Bool
    }

    /// The timing of one registered file.
    private struct Entry {
        let safetyPoll: UInt64
        /// Set when this file is polled (asked for, or file events refused it).
        var pollInterval: UInt64?
        /// An event seen and not yet handled.
        var pending: MonitorEvent?
        /// When the next event-driven check or re-check runs; nil when none is planned.
        var nextRun: UInt64?
        /// Delays still to come after the current wake-up, and how many of them are quick.
        var rechecks: ArraySlice<UInt64> = []
        var quickLeft = 0
        /// When the safety poll (or, when polling, the next poll) is due. Only a safety poll (or
        /// a poll) moves it, so neither unrelated events in the directory nor a stream of
        /// commits can postpone it.
        var nextSafety: UInt64 = 0
        var cooldownUntil: UInt64 = 0
        var isRunning = false

        var deadline: UInt64 { min(nextRun ?? .max, nextSafety) }
    }

    private var entries: [UInt64: Entry] = [:]
    /// Per safety-poll interval: the last safety-poll time handed out (see `safetySpacing`),
    /// and how many registered files have that interval.
    private var safetySlots: [UInt64: UInt64] = [:]
    private var safetyFiles: [UInt64: Int] = [:]
    /// When files want their next look: every change of an entry's `deadline` is followed by
    /// `plan(_:)`.
    private var deadlines = DeadlineHeap()

    var count: Int { entries.count }

    func isPolled(_ id: UInt64) -> Bool { entries[id]?.pollInterval != nil }

    // MARK: Files coming and going

    /// Adds a file: polled every `pollInterval` if given, else watched through file events and
    /// safety-polled every `safetyPoll`, in turn with the files that share that interval.
    mutating func add(_ id: UInt64, safetyPoll: UInt64, pollInterval: UInt64?, now: UInt64) {
        var entry = Entry(safetyPoll: max(safetyPoll, Self.shortestSafetyPoll), pollInterval: pollInterval)
        safetyFiles[entry.safetyPoll, default: 0] += 1
        if let pollInterval {
            entry.nextSafety = Self.deadline(after: pollInterval, from: now)
        } else {
            entry.nextSafety = safetySlot(interval: entry.safetyPoll, now: now)
        }
        entries[id] = entry
        plan(id)
    }

    /// Forgets a file; its planned deadlines are dropped when they come up, and a run of it
    /// under way finishes without effect.
    mutating func remove(_ id: UInt64) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        safetyFiles[entry.safetyPoll, default: 1] -= 1
        if safetyFiles[entry.safetyPoll] == 0 {
            safetyFiles[entry.safetyPoll] = nil
            safetySlots[entry.safetyPoll] = nil
        }
    }

    /// From now on the file is polled every `interval` (its file events were refused or went
    /// away); the first poll is no later than one interval from `now`.
    mutating func startPolling(_ id: UInt64, every interval: UInt64, now: UInt64) {
        guard var entry = entries[id] else { return }
        entry.pollInterval = interval
        entry.nextSafety = min(entry.nextSafety, Self.deadline(after: interval, from: now))
        entries[id] = entry
        plan(id)
    }

    // MARK: Events and runs

    /// A file event: the file looks at `now`, or when its cool-down ends. A database-file event
    /// is never downgraded by a later plain one before it is handled.
    mutating func mark(_ id: UInt64, _ event: MonitorEvent, now: UInt64) {
        guard var entry = entries[id] else { return }
        if entry.pending != .databaseFileEvent { entry.pending = event }
        entry.nextRun = min(entry.nextRun ?? .max, max(now, entry.cooldownUntil))
        entries[id] = entry
        plan(id)
    }

    /// The earliest deadline of a file not running now (`.max`: none); drops stale plan entries.
    mutating func earliestDeadline() -> UInt64 {
        while let first = deadlines.first {
            if isCurrent(first) { return first.deadline }
            deadlines.popFirst()
        }
        return .max
    }

    /// The runs due at `now`; their files are marked running until ``finished(_:outcome:now:)``.
    mutating func takeDue(now: UInt64) -> [Run] {
        var due: [Run] = []
        takeDue(now: now) { due.append($0) }
        return due
    }

    /// The runs due at `now`, each handed to `body` (the monitor builds its own list with no
    /// second one in between); their files are marked running until ``finished(_:outcome:now:)``.
    mutating func takeDue(now: UInt64, _ body: (Run) -> Void) {
        var dueIDs: [UInt64] = []
        var taken = Set<UInt64>()
        while let first = deadlines.first, first.deadline <= now {
            deadlines.popFirst()
            // A file planned twice with one deadline is taken once.
            if isCurrent(first), taken.insert(first.id).inserted { dueIDs.append(first.id) }
        }
        for id in dueIDs {
            guard var entry = entries.removeValue(forKey: id) else { continue }
            let event: MonitorEvent
            let fromEvent = entry.pending != nil
            if let pending = entry.pending {
                event = pending
            } else if let nextRun = entry.nextRun, nextRun <= now {
                event = .filesChanged
            } else {
                event = .safetyPoll
            }
            entry.pending = nil
            entry.nextRun = nil
            entry.isRunning = true
            entries[id] = entry
            body(Run(id: id, event: event, fromEvent: fromEvent))
        }
    }

    /// Plans the file's next look after its handler answered `outcome` at `now`.
    mutating func finished(_ run: Run, outcome: MonitorOutcome, now: UInt64) {
        guard var entry = entries[run.id] else { return }  // removed meanwhile
        entry.isRunning = false
        if let pollInterval = entry.pollInterval {
            entry.nextSafety = Self.deadline(after: pollInterval, from: now)
        } else if entry.nextSafety <= now {
            entry.nextSafety = safetySlot(interval: entry.safetyPoll, now: now)
        }
        if entry.pollInterval == nil {
            if run.fromEvent {
                entry.rechecks = ArraySlice(Self.quickRechecks + Self.slowRechecks)
                entry.quickLeft = Self.quickRechecks.count
                entry.cooldownUntil = now + Self.cooldown
            }
            switch outcome {
            case .sawCommit, .ownCommits:
                if case .sawCommit = outcome { entry.cooldownUntil = 0 }
                if entry.quickLeft > 0 {
                    entry.rechecks = entry.rechecks.dropFirst(entry.quickLeft)
                    entry.quickLeft = 0
                }
            case .nothingNew, .busy:
                break
            }
        }
        var delay: UInt64?
        if case .busy = outcome {
            delay = Self.busyRetry
        } else if let next = entry.rechecks.first {
            entry.rechecks = entry.rechecks.dropFirst()
            if entry.quickLeft > 0 { entry.quickLeft -= 1 }
            delay = next
        }
        if let delay {
            entry.nextRun = min(entry.nextRun ?? .max, now + delay)
        }
        entries[run.id] = entry
        plan(run.id)
    }

    // MARK: Time arithmetic

    /// `interval` after `now`, rounded up to a tenth of the interval (at most 100 ms): polls of
    /// many files fall on shared instants, so 10,000 polled stores wake the thread about ten
    /// times a second, not five thousand times.
    static func deadline(after interval: UInt64, from now: UInt64) -> UInt64 {
        let granularity = max(1_000_000, min(interval / 10, 100_000_000))
        return ((now + interval) / granularity + 1) * granularity
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 1_000_000 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    // MARK: Private

    /// Records the file's current deadline in the plan (a running file is planned when its run
    /// finishes).
    private mutating func plan(_ id: UInt64) {
        guard let entry = entries[id], !entry.isRunning, entry.deadline != .max else { return }
        deadlines.push(entry.deadline, id)
    }

    /// Whether a planned entry still says when its file wants a look.
    private func isCurrent(_ planned: DeadlineHeap.Entry) -> Bool {
        guard let entry = entries[planned.id] else { return false }
        return !entry.isRunning && entry.deadline == planned.deadline
    }

    /// When a file watched through events, with this safety-poll interval, is looked at next
    /// if nothing happens: an interval from now, and `safetySpacing` after the previous file's.
    /// The timeline reaches at most one spacing per file ahead, so when most stores close the
    /// rest are soon looked at every interval again.
    private mutating func safetySlot(interval: UInt64, now: UInt64) -> UInt64 {
        let spacing = min(interval, Self.safetySpacing)
        let horizon = now + UInt64(max(safetyFiles[interval] ?? 1, 1)) * spacing
        let slot = max(now + interval, min(safetySlots[interval] ?? 0, horizon) + spacing)
        safetySlots[interval] = slot
        return slot
    }
}
