#if Console
import Foundation
import SQLiteDefaults
import Synchronization

/// One observation of the store, fanned out to every event-stream client: each committed
/// change, from any writer, becomes one event with a sequence number, framed once and queued
/// for each client (bounded per client; see ``EventQueue``).
final class EventHub: Sendable {
    private struct State {
        var nextSequence = 1
        var queues: [ObjectIdentifier: EventQueue] = [:]
        var observation: DefaultsObservation?
    }

    private let state = Mutex(State())
    /// Pending bytes one client may fall behind before its stream is ended.
    let perClientLimit: Int
    /// Asked, for each change, whether its key is secret now (true when it cannot tell, so a
    /// doubt never sends a value).
    private let isSecret: @Sendable (String) -> Bool

    init(store: DefaultsStore, perClientLimit: Int) {
        self.perClientLimit = perClientLimit
        self.isSecret = { key in (try? store.secretKeys().contains(key)) ?? true }
        // The handler holds the hub weakly: the observation lives in the hub, and a strong
        // capture would keep both alive for as long as the store.
        let observation = store.observe { [weak self] change in self?.publish(change) }
        state.withLock { $0.observation = observation }
    }

    deinit {
        state.withLock { $0.observation?.cancel() }
    }

    /// A new client's queue, registered until ``remove(_:)``.
    func subscribe() -> EventQueue {
        let queue = EventQueue(limit: perClientLimit)
        state.withLock { $0.queues[ObjectIdentifier(queue)] = queue }
        return queue
    }

    /// Unregisters a client's queue.
    func remove(_ queue: EventQueue) {
        _ = state.withLock { $0.queues.removeValue(forKey: ObjectIdentifier(queue)) }
    }

    /// How many clients are connected now.
    var clientCount: Int { state.withLock { $0.queues.count } }

    /// Ends every client's stream (the server is stopping).
    func finishAll() {
        let queues = state.withLock { Array($0.queues.values) }
        for queue in queues { queue.finish() }
    }

    /// Numbers a change, frames it once, and queues it for every client. Called by the store's
    /// delivery queue, one change at a time in commit order, so sequence numbers follow it.
    private func publish(_ change: AnyDefaultsChange) {
        let now = Date().timeIntervalSince1970
        let (sequence, queues) = state.withLock { state in
            defer { state.nextSequence += 1 }
            return (state.nextSequence, Array(state.queues.values))
        }
        guard !queues.isEmpty else { return }
        let secret = isSecret(change.key)
        let framed = "data: " + ConsoleJSON.event(seq: sequence, change: change, time: now, secret: secret) + "\n\n"
        for queue in queues { queue.push(framed) }
    }
}
#endif
