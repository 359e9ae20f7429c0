import Synchronization

/// Committed changes waiting to reach observers, in commit order.
///
/// Changes are queued while the database lock is held (so the queue's order is the commit
/// order) and delivered after it is released, by whichever thread finds the queue idle:
/// usually the writer itself, right after its commit. A callback that writes to the store
/// queues its change behind the one being delivered instead of recursing, so callbacks may
/// use the store freely, and no observer ever sees an older value after a newer one.
final class DeliveryQueue: Sendable {
    struct Item {
        let key: String
        let value: SQLiteValue?
        let origin: DefaultsChangeOrigin
        /// Who wrote it, where known (nil after a full comparison).
        let writer: DefaultsWriter?
        /// The history's position just before this change, where known: what a bounded
        /// sequence that had to leave the change out names as the place to resume from.
        var resumeAfter: Int64? = nil
    }

    private struct State {
        var items: [Item] = []
        var isDelivering = false
    }

    private let state = Mutex(State())
    private let registry: ObserverRegistry

    init(registry: ObserverRegistry) {
        self.registry = registry
    }

    func enqueue(_ item: Item) {
        state.withLock { $0.items.append(item) }
    }

    /// Delivers everything queued, unless another thread is already doing so (it will
    /// deliver what we queued too). Must be called with no lock held.
    func deliver() {
        let claimed = state.withLock { state in
            guard !state.isDelivering, !state.items.isEmpty else { return false }
            state.isDelivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let batch = state.withLock { state -> [Item] in
                if state.items.isEmpty { state.isDelivering = false }
                defer { state.items.removeAll() }
                return state.items
            }
            if batch.isEmpty { return }
            for item in batch {
                for observer in registry.observers(for: item.key) where !observer.isCancelled.load(ordering: .acquiring) {
                    observer.deliver(item.key, item.value, item.origin, item.writer, item.resumeAfter)
                }
            }
        }
    }
}
