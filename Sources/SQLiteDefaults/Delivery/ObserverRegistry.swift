import Synchronization

/// What an observer is called with: the key, its new row as stored (nil when removed), who made
/// the change, its writer where known, and the history position just before it where known
/// (`changes(since:)` from there reads it again; nil after a full comparison, which the history
/// does not record as such).
typealias ObserverCallback = @Sendable (_ key: String, _ stored: SQLiteValue?, _ origin: DefaultsChangeOrigin,
                                        _ writer: DefaultsWriter?, _ resumeAfter: Int64?) -> Void

/// One registered callback. Delivery checks `isCancelled` right before each call, so a
/// callback that cancels itself or another observer mid-delivery stops that observer at once.
final class Observer: Sendable {
    let id: UInt64
    /// The key observed; `nil` for an observer of every key.
    let key: String?
    let isCancelled = Atomic<Bool>(false)
    let deliver: ObserverCallback
    /// Ends an AsyncSequence built on this observer when the store goes away.
    let onStoreClosed: (@Sendable () -> Void)?

    init(id: UInt64, key: String?, onStoreClosed: (@Sendable () -> Void)?,
         deliver: @escaping ObserverCallback) {
        self.id = id
        self.key = key
        self.onStoreClosed = onStoreClosed
        self.deliver = deliver
    }
}

/// Observers by key, so a write costs one dictionary lookup however many other keys are
/// observed. Keys are compared by their bytes (``HashedKey``), as SQLite compares them.
final class ObserverRegistry: Sendable {
    private struct State {
        var byKey: [HashedKey: [Observer]] = [:]
        var everyKey: [Observer] = []
        var nextID: UInt64 = 1
    }

    private let state = Mutex(State())

    func add(key: String?, onStoreClosed: (@Sendable () -> Void)? = nil,
             deliver: @escaping ObserverCallback) -> Observer {
        state.withLock { state in
            let observer = Observer(id: state.nextID, key: key, onStoreClosed: onStoreClosed, deliver: deliver)
            state.nextID += 1
            if let key { state.byKey[HashedKey(key), default: []].append(observer) } else { state.everyKey.append(observer) }
            return observer
        }
    }

    func remove(_ observer: Observer) {
        observer.isCancelled.store(true, ordering: .releasing)
        state.withLock { state in
            if let name = observer.key {
                let key = HashedKey(name)
                state.byKey[key]?.removeAll { $0 === observer }
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            } else {
                state.everyKey.removeAll { $0 === observer }
            }
        }
    }

    /// Whether a change of `key` would reach anyone.
    func isObserved(_ key: HashedKey) -> Bool {
        state.withLock { !$0.everyKey.isEmpty || $0.byKey[key] != nil }
    }

    /// The writes of keys that someone observes, in the order given. One lock for all.
    func observed(among writes: [ChangeRecorder.Write]) -> [ChangeRecorder.Write] {
        state.withLock { state in
            if !state.everyKey.isEmpty { return writes }
            if state.byKey.isEmpty { return [] }
            return writes.filter { state.byKey[$0.hashedKey] != nil }
        }
    }

    var observedKeys: [String] { state.withLock { $0.byKey.keys.map(\.name) } }

    /// Whether anyone observes anything.
    var hasObservers: Bool { state.withLock { !$0.everyKey.isEmpty || !$0.byKey.isEmpty } }

    /// Whether anyone observes every key (`observe(_:)`, `changes()`).
    var observesEveryKey: Bool { state.withLock { !$0.everyKey.isEmpty } }

    /// Unregisters everyone and ends their AsyncSequences (the store is going away).
    func closeAll() {
        let observers = state.withLock { state in
            defer { state = State(nextID: state.nextID) }
            return state.byKey.values.flatMap { $0 } + state.everyKey
        }
        for observer in observers {
            observer.isCancelled.store(true, ordering: .releasing)
            observer.onStoreClosed?()
        }
    }

    /// The observers to call for a change of `key`, in registration order per group.
    func observers(for key: String) -> [Observer] {
        state.withLock { state in
            let own = state.byKey[HashedKey(key)] ?? []
            return state.everyKey.isEmpty ? own : own + state.everyKey
        }
    }
}
