import Foundation

/// The portable ``FileEventSource``: it watches nothing, so the monitor polls every store
/// (`PRAGMA data_version` and the files' stamps, on a timer), and its thread sleeps on a
/// condition until the next poll is due or a registration wakes it. Used where the platform has
/// no event source, where Linux refused the monitor its eventfd, and everywhere when the
/// process forced the polling monitor (`SQLITEDEFAULTS_MONITOR=polling`, see ``FileMonitor/forcesPolling``).
///
/// Only POSIX-level Foundation: this is the monitor a port starts from.
final class PollingEventSource: FileEventSource, @unchecked Sendable {
    // @unchecked Sendable: the one mutable field, `wakeRequested`, is read and written only
    // between `condition.lock()` and `condition.unlock()`; everything else is a `let`.
    private let condition = NSCondition()
    private var wakeRequested = false
    let unavailableReason: String?

    /// The longest single sleep. `NSCondition` waits against the wall clock; bounding each
    /// sleep bounds the delay a clock set backwards can cause (the monitor simply waits again).
    static let longestSleep: UInt64 = 1_000_000_000

    init(reason: String) {
        unavailableReason = reason
    }

    func addWatch(_ path: String, for kind: WatchKind) -> Result<Int32, WatchRefusal> {
        .failure(WatchRefusal(isMissingFile: false, description: unavailableReason ?? "no file events"))
    }

    func removeWatch(_ watch: Int32) {}

    func prepareWaitingThread() {}

    func wait(timeout: UInt64?) -> [FileEvent] {
        let sleep = min(timeout ?? Self.longestSleep, Self.longestSleep)
        let until = Date(timeIntervalSinceNow: Double(sleep) / 1_000_000_000)
        condition.lock()
        while !wakeRequested, condition.wait(until: until) {}
        wakeRequested = false
        condition.unlock()
        return []
    }

    func wake() {
        condition.lock()
        wakeRequested = true
        condition.signal()
        condition.unlock()
    }
}
