import Foundation
import SQLiteDefaults

/// What many open, idle stores cost one process: N stores on distinct files (spread over 100
/// directories), each with one observer, nobody writing. Threads and descriptors of the whole
/// process, memory per store (resident set growth / N), and CPU while idle.
///
/// An open connection holds three descriptors (database, -wal, -shm): the soft RLIMIT_NOFILE is
/// raised to the hard one first (and, as root, the hard one to 65,536 where the kernel allows
/// it); past the engine's connection budget, idle stores give their connection back.
public enum ManyStores {
    public struct Result: Sendable {
        /// Stores opened and observed.
        public var stores: Int
        /// The soft descriptor limit in force (raised as far as allowed).
        public var descriptorLimit: Int
        /// Threads of the process before any store was opened, with one of these stores open,
        /// and with all of them.
        public var threadsBefore: Int
        public var threadsWithOne: Int
        public var threads: Int
        /// Descriptors of the process before the first store, and with all of them.
        public var descriptorsBefore: Int
        public var descriptors: Int
        /// inotify instances of the process with all stores open.
        public var inotifyInstances: Int
        /// Resident set growth per store, bytes.
        public var residentBytesPerStore: Double
        /// Opening one store (and observing one key), microseconds, the mean over all.
        public var openMicroseconds: Double
        /// CPU (user + system) of the whole process over `idleSeconds` with every store open.
        public var idleCPUMilliseconds: Double
        public var idleSeconds: Double
        public var idleWakeups: Int

        public var descriptorsPerStore: Double { Double(descriptors - descriptorsBefore) / Double(max(stores, 1)) }
        /// Threads the stores added to the process (their monitors, whatever they share).
        public var threadsAdded: Int { threads - threadsBefore }
    }

    /// 10,000 stores (200 in a smoke run: still past the 128 inotify instances a user may have).
    public static var defaultCount: Int { RunMode.isSmoke ? 200 : 10_000 }

    /// Threads of this process now: taken before any store opens, it is the baseline for
    /// `measure(threadsBefore:)`.
    public static var processThreads: Int { Resources.threads }

    /// `threadsBefore`: the process's threads before its first store ever opened, when stores
    /// were opened (and closed) earlier in the process, because a monitor thread may outlive
    /// the store that started it; nil counts them here, before the first of these stores.
    public static func measure(count: Int = defaultCount, idleSeconds: Double, threadsBefore: Int? = nil) throws -> Result {
        let threadsBefore = threadsBefore ?? Resources.threads
        let limit = raiseDescriptorLimit()
        let directory = try TemporaryDirectory("many-stores")
        let key = DefaultsKey<Int>("bench.idle", default: 0)
        func path(_ index: Int) -> String { directory.file("d\(index % 100)/s\(index).sqlite") }

        let descriptorsBefore = Resources.descriptors
        let residentBefore = Resources.residentBytes
        var stores: [DefaultsStore] = []
        var tokens: [DefaultsObservation] = []
        stores.reserveCapacity(count)
        tokens.reserveCapacity(count)
        var threadsWithOne = 0
        let start = Clock.nanoseconds()
        for index in 0..<count {
            let store: DefaultsStore
            do {
                store = try DefaultsStore(path: path(index))
            } catch {
                throw BenchmarkFailure("store \(index + 1) of \(count) (descriptor limit \(limit)) did not open: \(error)")
            }
            tokens.append(store.observe(key) { _ in })
            stores.append(store)
            if index == 0 { threadsWithOne = Resources.threads }
        }
        let openNanoseconds = Clock.nanoseconds() - start
        usleep(500_000)  // let whatever the opening started settle
        let threads = Resources.threads, descriptors = Resources.descriptors
        let inotify = Resources.inotifyInstances
        let residentAfter = Resources.residentBytes

        var before = rusage(), after = rusage()
        getrusage(RUSAGE_SELF.rawValue, &before)
        usleep(UInt32(idleSeconds * 1_000_000))
        getrusage(RUSAGE_SELF.rawValue, &after)
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000 + Double(time.tv_usec) / 1_000 }
        let cpu = milliseconds(after.ru_utime) + milliseconds(after.ru_stime)
            - milliseconds(before.ru_utime) - milliseconds(before.ru_stime)

        // Close every store before its directory is removed.
        tokens.removeAll()
        for store in stores { try store.close() }
        stores.removeAll()
        withExtendedLifetime(directory) {}
        return Result(stores: count, descriptorLimit: Int(limit),
                      threadsBefore: threadsBefore, threadsWithOne: threadsWithOne, threads: threads,
                      descriptorsBefore: descriptorsBefore, descriptors: descriptors, inotifyInstances: inotify,
                      residentBytesPerStore: Double(residentAfter - residentBefore) / Double(max(count, 1)),
                      openMicroseconds: Double(openNanoseconds) / 1_000 / Double(max(count, 1)),
                      idleCPUMilliseconds: cpu, idleSeconds: idleSeconds, idleWakeups: after.ru_nvcsw - before.ru_nvcsw)
    }

    /// Raises the soft descriptor limit to the hard one (as root, the hard one to 65,536 first
    /// where the kernel allows it); returns the soft limit in force.
    static func raiseDescriptorLimit() -> UInt64 {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        getrlimit(resource, &limit)
        if geteuid() == 0 && limit.rlim_max < 65_536 {
            var raised = limit
            raised.rlim_max = 65_536
            raised.rlim_cur = 65_536
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
        getrlimit(resource, &limit)
        return UInt64(limit.rlim_cur)
    }
}

/// Threads, descriptors, inotify instances and resident memory of this process (Linux `/proc`).
enum Resources {
    static var threads: Int { entries("/proc/self/task").count }
    static var descriptors: Int { entries("/proc/self/fd").count }

    static var inotifyInstances: Int {
        entries("/proc/self/fd").filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify"
        }.count
    }

    /// Resident set size in bytes (`/proc/self/statm`, second field, in pages).
    static var residentBytes: Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func entries(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}
