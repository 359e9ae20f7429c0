import Synchronization

/// Keeps an observer registered. Call ``cancel()`` or let the last reference go: either
/// unregisters it, and no call starts after that.
///
/// ```swift
/// let token = store.observe(.name) { change in print(change.newValue) }
/// // …
/// token.cancel()
/// ```
public final class DefaultsObservation: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Unregisters the observer. Safe to call more than once, from any thread, and from
    /// inside the observer's own callback.
    public func cancel() {
        let action = onCancel.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
