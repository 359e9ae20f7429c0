import Foundation
import Logging
import Synchronization

/// Observers: registered against the cache, so every change reported afterwards is compared
/// with the value the observer started from.
extension StoreEngine {
    func addObserver(key: String?, onStoreClosed: (@Sendable () -> Void)? = nil,
                     deliver: @escaping ObserverCallback) -> Observer {
        // Cache what the observer starts from and register in one step under the database
        // lock, so every change reported afterwards is compared with the value the observer
        // started from: a change committed before `observe` returned is never re-announced.
        // An observer of every key makes the cache complete, so a full comparison (after a
        // restore or a pruned log) can tell it every key that differs.
        var caughtUp = false
        let primed = try? withConnection { connection -> Observer? in
            if connection.transactionDepth == 0 {
                if let key, !cache.contains(HashedKey(key)) {
                    cache.update(HashedKey(key), stored: try connection.read(key))
                } else if key == nil, !cache.isComplete {
                    // Other connections' commits the monitor has not applied yet go to the
                    // observers already registered first: filled with them, the cache would
                    // hold their values already, and those observers would never hear them.
                    if registry.hasObservers, connection.changeLog != nil {
                        applyPendingCommits(connection)
                        caughtUp = true
                    }
                    if let rows = try? connection.entries() { cache.fill(with: rows) }
                }
            }
            return registry.add(key: key, onStoreClosed: onStoreClosed, deliver: deliver)
        }
        // What the catch-up above queued for the observers already registered.
        if caughtUp { delivery.deliver() }
        if let observer = primed ?? nil { return observer }
        let observer = registry.add(key: key, onStoreClosed: onStoreClosed, deliver: deliver)
        if isClosed {
            // Closed before or while registering: the observer never hears anything, and its
            // sequence ends at once.
            registry.remove(observer)
            onStoreClosed?()
        }
        return observer
    }

    /// Unregisters an observer ``addObserver(key:onStoreClosed:deliver:)`` returned.
    func removeObserver(_ observer: Observer) {
        registry.remove(observer)
    }
}
