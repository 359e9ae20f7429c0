/// How a store asks the monitor to watch its file.
enum WatchMode: Sendable, Equatable {
    /// File events (inotify on Linux), with a polling fallback when there are none: the
    /// platform has no ``FileEventSource``, the kernel refuses a watch, or the process forced
    /// the polling monitor (``FileMonitor/forcesPolling``).
    case fileEvents
    /// `PRAGMA data_version` every `interval`, no file events.
    case polling(interval: Duration)
}
