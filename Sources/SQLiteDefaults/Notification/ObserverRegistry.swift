import Synchronization

/// One registered callback. Delivery checks `isCancelled` right before each call, so a
/// callback that cancels itself or another observer mid-delivery stops that observer at once.
final class Observer: Sendable {
    let id: UInt64
    /// The key observed; `nil` for an observer of every key.
    let key: String?
    let isCancelled = Atomic<Bool>(false)
    let deliver: @Sendable (String, SQLiteValue?, DefaultsChangeOrigin) -> Void

    init(id: UInt64, key: String?, deliver: @escaping @Sendable (String, SQLiteValue?, DefaultsChangeOrigin) -> Void) {
        self.id = id
        self.key = key
        self.deliver = deliver
    }
}

/// Observers by key, so a write costs one dictionary lookup however many other keys are
/// observed.
final class ObserverRegistry: Sendable {
    private struct State {
        var byKey: [String: [Observer]] = [:]
        var everyKey: [Observer] = []
        var nextID: UInt64 = 1
    }

    private let state = Mutex(State())

    func add(key: String?, deliver: @escaping @Sendable (String, SQLiteValue?, DefaultsChangeOrigin) -> Void) -> Observer {
        state.withLock { state in
            let observer = Observer(id: state.nextID, key: key, deliver: deliver)
            state.nextID += 1
            if let key { state.byKey[key, default: []].append(observer) } else { state.everyKey.append(observer) }
            return observer
        }
    }

    func remove(_ observer: Observer) {
        observer.isCancelled.store(true, ordering: .releasing)
        state.withLock { state in
            if let key = observer.key {
                state.byKey[key]?.removeAll { $0 === observer }
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            } else {
                state.everyKey.removeAll { $0 === observer }
            }
        }
    }

    /// Whether a change of `key` would reach anyone.
    func isObserved(_ key: String) -> Bool {
        state.withLock { !$0.everyKey.isEmpty || $0.byKey[key] != nil }
    }

    var hasObservers: Bool {
        state.withLock { !$0.everyKey.isEmpty || !$0.byKey.isEmpty }
    }

    var observedKeys: [String] { state.withLock { Array($0.byKey.keys) } }

    /// The observers to call for a change of `key`, in registration order per group.
    func observers(for key: String) -> [Observer] {
        state.withLock { state in
            let own = state.byKey[key] ?? []
            return state.everyKey.isEmpty ? own : own + state.everyKey
        }
    }
}
