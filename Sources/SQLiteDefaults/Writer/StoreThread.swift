import Foundation
import Synchronization

/// The thread a store runs its async calls on: one per store (one connection), started on the
/// first async call and ended after ``idleLifetime`` without work or when the store closes.
///
/// Async code must not wait for SQLite on the cooperative pool or an event loop, where one
/// waiting write stops every task that shares the thread. The caller suspends instead; the
/// work runs here, one job at a time, in the order the calls were made.
///
/// A job that finds the file's write lock held by another connection before it has written
/// anything does not wait for it on this thread (SQLite's busy handler would hold the store's
/// connection all that time, and every read of the store behind it): it is parked, the thread
/// goes on with the jobs behind it (reads answer at once), and it is tried again after the
/// delays SQLite's own busy handler uses, until the busy timeout — counted from its first
/// try — runs out (`.busy`, naming the real wait). A parked job is not started: cancelling its
/// task ends it with `CancellationError`, closing the store with `.closed`.
final class StoreThread: Sendable {
    private struct State {
        var queue: [StoreJob] = []
        var head = 0
        /// Jobs that found the lock held, in the order they were first queued, and when each
        /// is to be tried again.
        var parked: [(job: StoreJob, retry: ContinuousClock.Instant)] = []
        /// 1 while a parked job is being tried again (it is out of `parked` meanwhile, and still
        /// waits for the lock as far as anyone counting is concerned).
        var retrying = 0
        var hasThread = false
        var sleeping = false
        var closedError: DefaultsError?

        var isIdle: Bool { head == queue.count && parked.isEmpty }

        mutating func popFirst() -> StoreJob? {
            guard head < queue.count else { return nil }
            let job = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    /// How long the thread stays without work before it ends (the next call starts another).
    static let idleLifetime: Duration = .seconds(10)
    /// The waits between tries of a job that found the lock held: SQLite's busy handler's own.
    static let retryDelays: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    /// How long the thread looks for the next job before it sleeps, once calls come one right
    /// after another (a job queued within this long of the previous one's end).
    ///
    /// A caller awaiting writes one after another queues its next one about 10–20 µs after the
    /// last resumed it: the time a pool thread takes to wake. Asleep by then, the store thread
    /// would need waking too, through the kernel (a futex, and on a virtual machine an
    /// inter-processor interrupt): two wake-ups per write instead of one. The thread looks only
    /// while calls keep coming, and only once after the last: an isolated write costs no spin.
    static let linger: Duration = .microseconds(50)
    /// How long a caller looks for its result before it suspends, when the thread was awake
    /// with nothing before its job (see ``enqueue(_:)``).
    ///
    /// A caller that suspends gives its pool thread back; after a write of 20–30 µs that thread
    /// has parked, and resuming the caller wakes it through the kernel (a futex and, on a
    /// virtual machine, an inter-processor interrupt: about 9 µs measured, the largest part of
    /// an awaited set's extra cost). Looking for as long as a write takes keeps it awake. The
    /// look never waits for SQLite: a job that finds the lock held is parked by the thread, and
    /// the caller suspends when the look runs out.
    static let callerLook: Duration = .microseconds(60)

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    /// Whether the thread runs a job whose caller has not been answered yet: a call queued then
    /// waits for that job too, so its caller suspends at once.
    private let answering = Atomic<Bool>(false)
    /// The running thread's id (0 when none).
    private let threadID = Atomic<UInt>(0)
    /// Whether the job running now has not written yet: its first taking of the write lock
    /// must not wait (see ``lockPolicy``).
    private let beforeFirstWrite = Atomic<Bool>(false)
    /// Set when that first taking found the lock held: the attempt's result is discarded.
    private let foundLockHeld = Atomic<Bool>(false)
    let busyTimeout: Duration
    let path: String?

    init(busyTimeout: Duration, path: String?) {
        self.busyTimeout = busyTimeout
        self.path = path
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { threadID.load(ordering: .relaxed) == Self.currentThreadID }

    /// How the code running now takes the file's write lock.
    enum LockPolicy {
        /// As SQLite does: waiting up to the busy timeout (any thread but this one, or a job
        /// that already wrote).
        case wait
        /// Once, without waiting: the job has not written yet and may be tried again.
        case tryOnce
        /// Not at all: the job found the lock held once and will be tried again from the
        /// start, so nothing it does now may land.
        case refuse
    }

    /// How a write lock taken on the calling thread, now, is to be taken.
    var lockPolicy: LockPolicy {
        guard isCurrent, beforeFirstWrite.load(ordering: .relaxed) else { return .wait }
        return foundLockHeld.load(ordering: .relaxed) ? .refuse : .tryOnce
    }

    /// The running job took the write lock: from now on it waits for locks as any caller does
    /// (trying it again would repeat what it wrote).
    func noteLockTaken() {
        if isCurrent { beforeFirstWrite.store(false, ordering: .relaxed) }
    }

    /// The running job found the lock held before writing: it will be tried again.
    func noteLockHeld() {
        if isCurrent { foundLockHeld.store(true, ordering: .relaxed) }
    }

    /// Runs `work` on this thread, suspending the caller.
    /// - Throws: what `work` throws; `CancellationError` when the task is cancelled before
    ///   `work` starts; `.closed` when the store closes first; `.busy` when the write lock stayed
    ///   held past the busy timeout.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let job = StoreJob()
        let call = StoreCall<T>()
        return try await withTaskCancellationHandler {
            let armed = job.arm(attempt: { [self] in
                let result = Result { try work() }
                if foundLockHeld.load(ordering: .relaxed) { return false }
                answering.store(false, ordering: .relaxed)
                call.complete(result)
                return true
            }, fail: { call.complete(.failure($0)) })
            if armed, enqueue(job), Self.look(for: Self.callerLook, until: { call.isFinished }),
               let result = call.take() {
                return try result.get()
            }
            return try await call.wait()
        } onCancel: {
            job.cancel()
        }
    }

    /// Queues `job`; true when the thread was awake with nothing before it (lingering, or
    /// about to answer the job before), so the caller's result comes within a write's time.
    private func enqueue(_ job: StoreJob) -> Bool {
        enum Action { case none(awake: Bool), signal, start, refuse(DefaultsError) }
        let action = state.withLock { state -> Action in
            if let closed = state.closedError { return .refuse(closed) }
            let first = state.head == state.queue.count && state.parked.isEmpty && state.retrying == 0
            state.queue.append(job)
            if !state.hasThread {
                state.hasThread = true
                return .start
            }
            if state.sleeping {
                state.sleeping = false
                return .signal
            }
            return .none(awake: first && !answering.load(ordering: .relaxed))
        }
        switch action {
        case .none(let awake): return awake
        case .signal: wake.signal()
        case .start: startThread()
        case .refuse(let error): job.fail(with: error)
        }
        return false
    }

    /// How many jobs wait for another connection's lock now (for tests: a job is known to wait).
    /// The one being tried again counts: it is out of the list only while its try runs.
    var parkedCount: Int { state.withLock { $0.parked.count + $0.retrying } }

    /// Fails every job not started with `error`; the thread ends after the job it runs.
    func close(with error: DefaultsError) {
        let pending = state.withLock { state -> [StoreJob] in
            guard state.closedError == nil else { return [] }
            state.closedError = error
            let pending = Array(state.queue[state.head...]) + state.parked.map(\.job)
            state.queue.removeAll()
            state.head = 0
            state.parked.removeAll()
            if state.sleeping {
                state.sleeping = false
                wake.signal()
            }
            return pending
        }
        for job in pending { job.fail(with: error) }
    }

    private func startThread() {
        let thread = Thread { [self] in loop() }
        thread.name = "SQLiteDefaults store"
        thread.start()
    }

    private enum Next {
        case run(StoreJob)
        case linger
        case sleep(until: ContinuousClock.Instant?)
        case exit
    }

    private func loop() {
        threadID.store(Self.currentThreadID, ordering: .relaxed)
        defer { threadID.store(0, ordering: .relaxed) }
        var idleSince: ContinuousClock.Instant?
        // When the last job ended, and whether calls are coming one right after another.
        var lastEnd: ContinuousClock.Instant?
        var streaming = false
        while true {
            let now = ContinuousClock.now
            let next = state.withLock { state -> Next in
                if state.closedError != nil {
                    state.hasThread = false
                    return .exit
                }
                if let job = nextJob(&state, now: now) {
                    answering.store(true, ordering: .relaxed)
                    return .run(job)
                }
                if state.isIdle, let idleSince, now - idleSince >= Self.idleLifetime {
                    state.hasThread = false
                    return .exit
                }
                if streaming && state.parked.isEmpty { return .linger }
                state.sleeping = true
                return .sleep(until: state.parked.map(\.retry).min())
            }
            switch next {
            case .exit:
                return
            case .linger:
                // Once: if no call comes meanwhile, the next turn sleeps.
                streaming = false
                lingerForNextJob()
            case .sleep(let until):
                if idleSince == nil, until == nil { idleSince = now }
                let wait = until.map { $0 - now } ?? Self.idleLifetime
                let nanoseconds = max(0, wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
                state.withLock { $0.sleeping = false }
            case .run(let job):
                idleSince = nil
                if let lastEnd { streaming = job.queued - lastEnd < Self.linger }
                attempt(job)
                // A job cancelled, closed or parked answered no one.
                answering.store(false, ordering: .relaxed)
                lastEnd = .now
            }
        }
    }

    /// Looks for a queued job (or the store closing) for up to ``linger``.
    private func lingerForNextJob() {
        _ = Self.look(for: Self.linger) { state.withLock { $0.head < $0.queue.count || $0.closedError != nil } }
    }

    /// Looks for `done` for up to `budget`, giving the core to any other thread that wants it
    /// between looks (the store thread's linger, and a caller's look for its result); whether
    /// it came.
    static func look(for budget: Duration, until done: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: budget)
        while !done() {
            guard ContinuousClock.now < deadline else { return false }
            sched_yield()
        }
        return true
    }

    /// The first queued job, a parked one whose time came first (they were queued earlier).
    private func nextJob(_ state: inout State, now: ContinuousClock.Instant) -> StoreJob? {
        if let due = state.parked.firstIndex(where: { $0.retry <= now }) {
            state.retrying = 1
            return state.parked.remove(at: due).job
        }
        return state.popFirst()
    }

    private func attempt(_ job: StoreJob) {
        beforeFirstWrite.store(true, ordering: .relaxed)
        foundLockHeld.store(false, ordering: .relaxed)
        defer {
            beforeFirstWrite.store(false, ordering: .relaxed)
            foundLockHeld.store(false, ordering: .relaxed)
        }
        guard job.runAttempt() == false else {
            state.withLock { $0.retrying = 0 }
            return
        }
        // The lock was held: park the job, or end it when the busy timeout has run out.
        let now = ContinuousClock.now
        let first = job.firstBusy.withLock { first in
            if first == nil { first = now }
            return first!
        }
        let waited = now - first
        if waited >= busyTimeout {
            state.withLock { $0.retrying = 0 }
            job.fail(with: DefaultsError(
                .busy,
                "the database stayed locked by another connection for \(Self.describe(waited)), past the busy timeout of \(Self.describe(busyTimeout)); nothing was written",
                path: path))
            return
        }
        let count = job.busyCount.add(1, ordering: .relaxed).newValue
        let delay = Duration.milliseconds(Self.retryDelays[min(count, Self.retryDelays.count) - 1])
        let retry = min(now + delay, first + busyTimeout)
        let refused = state.withLock { state -> DefaultsError? in
            state.retrying = 0
            if let closed = state.closedError { return closed }
            state.parked.append((job, retry))
            return nil
        }
        if let refused { job.fail(with: refused) }
    }

    /// A wait as people read it: milliseconds under 10 s, seconds with one decimal above.
    static func describe(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds < 10_000 { return "\(milliseconds) ms" }
        return String(format: "%.1f s", Double(milliseconds) / 1000)
    }

    private static var currentThreadID: UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }
}
