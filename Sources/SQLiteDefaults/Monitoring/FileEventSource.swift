/// The monitor's one platform seam: where file events and the monitor thread's wake-ups come
/// from. Everything the monitor needs from the operating system beyond POSIX (inotify, eventfd
/// and `prctl` on Linux) lives behind it, so a port to another system is one conforming file
/// (kqueue on the BSDs and macOS, for example); with no such file the monitor runs on
/// ``PollingEventSource`` and polls every store.
///
/// The monitor makes one source for the process and keeps it for ever. `addWatch` and
/// `removeWatch` are called with the monitor's lock held, from any thread; `prepareWaitingThread`
/// and `wait` only on the monitor thread; `wake` from any thread.
protocol FileEventSource: Sendable {
    /// Why this source watches no file (every store is then polled), or nil when it does.
    var unavailableReason: String? { get }

    /// Starts watching `path`. Returns the watch's number (the same for a path already
    /// watched), which events then carry, or why the system refused.
    func addWatch(_ path: String, for kind: WatchKind) -> Result<Int32, WatchRefusal>

    func removeWatch(_ watch: Int32)

    /// Called once on the monitor thread before its first ``wait(timeout:)``.
    func prepareWaitingThread()

    /// Waits until an event arrives, ``wake()`` is called, or `timeout` nanoseconds pass (nil:
    /// no time limit), and returns the events queued by then (possibly none). It may return
    /// early with none: the monitor then finds nothing due and waits again.
    func wait(timeout: UInt64?) -> [FileEvent]

    /// Ends the monitor thread's current (or next) ``wait(timeout:)`` soon.
    func wake()
}

/// What a watch reports.
enum WatchKind: Sendable, Equatable {
    /// A directory's structural changes: a file in it created, deleted, moved in or out, or
    /// closed after writing. Not every write (that would make every write to any file in the
    /// directory build an event).
    case directory
    /// The file's next write, once (a one-shot watch); then the watch is gone, and reports
    /// ``FileEventKinds/watchRemoved`` if the platform says so.
    case nextWrite
}

/// One event as a ``FileEventSource`` reports it.
struct FileEvent: Sendable, Equatable {
    let watch: Int32
    let kinds: FileEventKinds
    /// The name within a watched directory; empty for a watch on a file.
    let name: String
}

/// What happened, in the monitor's words (inotify's `IN_*` bits, translated by its source).
struct FileEventKinds: OptionSet, Sendable {
    let rawValue: UInt16
    static let written = FileEventKinds(rawValue: 1 << 0)
    static let closedAfterWriting = FileEventKinds(rawValue: 1 << 1)
    static let created = FileEventKinds(rawValue: 1 << 2)
    static let deleted = FileEventKinds(rawValue: 1 << 3)
    static let movedOut = FileEventKinds(rawValue: 1 << 4)
    static let movedIn = FileEventKinds(rawValue: 1 << 5)
    /// The watch ended: a one-shot watch fired, or what it watched went away.
    static let watchRemoved = FileEventKinds(rawValue: 1 << 6)
    /// Events were lost: every file must look.
    static let overflow = FileEventKinds(rawValue: 1 << 7)

    /// A file appeared, disappeared or was replaced.
    static let structural: FileEventKinds = [.created, .deleted, .movedOut, .movedIn]
}

/// Why a watch was refused.
struct WatchRefusal: Error, Sendable, Equatable {
    /// The path does not exist (yet): not a reason to poll.
    let isMissingFile: Bool
    let description: String
}
