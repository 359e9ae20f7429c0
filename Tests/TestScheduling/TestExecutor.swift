import Foundation
import Synchronization
import Testing

/// The threads every test body of the package runs on (``OffThePool``): one for each body that
/// can run now, up to ``width``, started as they are needed and shared by all tests of the process.
///
/// Why not the cooperative pool: it has one thread per core, and a test body runs on it until
/// its first suspension point — a test that opens and fills stores synchronously holds one for
/// as long as that takes. Two such tests at once (2026-12-02, on two loaded cores: both threads in
/// `ListExportImportTests.importIsAllOrNothing`, in migrations and `fdatasync`) and nothing else
/// in the process runs: not the product's own tasks, nor PostgresNIO's connection pool (`run()`),
/// nor the tasks that read the streams tests wait on. Ten fleet tests then found their client had
/// lent no connection after 60 s, all at once. Here a test body holds one of these threads, and
/// the pool is left to what a server leaves it to: the package's async paths and the tasks of
/// its dependencies. Tasks a test starts with `Task { }` do not inherit the preference and run
/// on the pool, as in an app.
///
/// A body that was waiting and can go on (its `await` returned) goes ahead of the bodies that
/// have not started: with few threads (a sanitizer's two) a resumed body would otherwise wait
/// behind every test not yet begun, while what it awaited — a child process told to wait for
/// it, a time limit — ran on (a helper waited 60 s for its test's next line, CI 2026-12-02).
public final class TestExecutor: @unchecked Sendable {
    // Sendable proof: `fresh`, `resumed`, `threads` and `idle` are only touched while
    // `condition` is locked.
    private let condition = NSCondition()
    /// First jobs of bodies that have not run yet, in arrival order.
    private var fresh = JobQueue()
    /// Later jobs of bodies that have run: taken first.
    private var resumed = JobQueue()
    private var threads = 0
    private var idle = 0
    private let width: Int

    /// The executor all of the package's tests share.
    ///
    /// Wide, not one thread per core: a body that works synchronously (opens and fills stores,
    /// replays a workload) holds its thread until it next suspends, and with a thread per core
    /// two of them stopped every other test's body, whose waits then ran out (an `eventually` of
    /// 60 s that polls, a stream read with a time limit). With a thread each the kernel shares
    /// the cores between them in slices of milliseconds. The bound is a net for the descriptors
    /// and memory of runaway parallelism, not a limit tests meet.
    ///
    /// `SQLITEDEFAULTS_TEST_THREADS` sets another width. Scripts/sanitize.sh sets 2: under
    /// ThreadSanitizer every body runs five to fifteen times slower, and 64 of them at once on two
    /// cores starved the threads the bodies wait on (a store's monitor, its delivery, a child's
    /// reaper) past 30 s deadlines; two at a time is how the cooperative pool ran them there.
    public static let shared = TestExecutor(width: configuredWidth ?? 64)

    private static var configuredWidth: Int? {
        guard let text = ProcessInfo.processInfo.environment["SQLITEDEFAULTS_TEST_THREADS"],
              let width = Int(text), width > 0 else { return nil }
        return width
    }

    private init(width: Int) {
        self.width = width
    }

    /// An executor for one test body: its jobs run on these threads, its first behind the
    /// bodies already waiting to start, every later one ahead of them.
    public func body() -> Body {
        Body(threads: self)
    }

    /// One test body's executor (``body()``).
    public final class Body: TaskExecutor {
        private let threads: TestExecutor
        private let started = Atomic<Bool>(false)

        fileprivate init(threads: TestExecutor) {
            self.threads = threads
        }

        public func enqueue(_ job: consuming ExecutorJob) {
            let resumed = started.exchange(true, ordering: .relaxed)
            threads.enqueue(UnownedJob(job), on: asUnownedTaskExecutor(), resumed: resumed)
        }
    }

    private func enqueue(_ job: UnownedJob, on executor: UnownedTaskExecutor, resumed isResumed: Bool) {
        condition.lock()
        if isResumed {
            resumed.append((job, executor))
        } else {
            fresh.append((job, executor))
        }
        // A thread for each queued job no idle thread will take (a signalled thread stays
        // counted as idle until it wakes, so `idle == 0` alone would leave a second job waiting).
        let start = fresh.count + resumed.count > idle && threads < width
        if start { threads += 1 }
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "test body"
            thread.start()
        }
    }

    private func run() {
        while true {
            condition.lock()
            while fresh.count + resumed.count == 0 {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let (job, executor) = resumed.count > 0 ? resumed.removeFirst() : fresh.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

/// A first-in, first-out queue of jobs with the executor each runs on.
private struct JobQueue {
    private var items: [(UnownedJob, UnownedTaskExecutor)] = []
    private var head = 0

    var count: Int { items.count - head }

    mutating func append(_ item: (UnownedJob, UnownedTaskExecutor)) {
        items.append(item)
    }

    mutating func removeFirst() -> (UnownedJob, UnownedTaskExecutor) {
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }
}
