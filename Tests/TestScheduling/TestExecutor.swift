import Foundation
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
public final class TestExecutor: TaskExecutor, @unchecked Sendable {
    // Sendable proof: `jobs`, `threads` and `idle` are only touched while `condition` is locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
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

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // A thread for each queued job no idle thread will take (a signalled thread stays
        // counted as idle until it wakes, so `idle == 0` alone would leave a second job waiting).
        let start = jobs.count - head > idle && threads < width
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
            while head == jobs.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
