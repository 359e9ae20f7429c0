import Synchronization

/// Keeps one file registered with the ``FileMonitor``; ``cancel()`` (or release) unregisters it.
/// Safe from any thread, the monitor's own thread included (inside a handler).
final class MonitorRegistration: Sendable {
    let id: UInt64
    /// Whether this file is polled (asked for, no file events here, or the kernel refused them).
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
