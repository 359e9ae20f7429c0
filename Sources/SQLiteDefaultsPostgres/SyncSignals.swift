#if Fleet
import SQLiteDefaults
import Synchronization

/// What wakes the sync's worker: keys the store reported changed, and news from PostgreSQL
/// (a notification, or the periodic safety fetch). Coalesced: any number of signals between
/// two wake-ups is one wake-up.
final class SyncSignals: Sendable {
    private struct State {
        // By bytes (HashedKey): "é" and "e" + U+0301 are two rows, and one `String` to `Set`.
        var dirty: Set<HashedKey> = []
        var remote = false
        var primaryCheck = false
        var relayNewest: Int64 = 0
        var notices: [FleetNotice] = []
        var listening = false
        var position: Int64 = 0
        var continuation: AsyncStream<Void>.Continuation?
    }

    private let state = Mutex(State())

    /// The store committed a change of `key` (any origin).
    func localChange(_ key: String) {
        state.withLock { state in
            state.dirty.insert(HashedKey(key))
            state.continuation?.yield()
        }
    }

    /// PostgreSQL may hold rows this file has not applied: always fetch.
    func remoteChange() {
        state.withLock { state in
            state.remote = true
            state.continuation?.yield()
        }
    }

    /// A relayed session's periodic fetch from the primary is due; `relayNewest` is the newest
    /// version the relay holds, asked just before.
    func primaryCheckDue(relayNewest: Int64) {
        state.withLock { state in
            state.remote = true
            state.primaryCheck = true
            state.relayNewest = relayNewest
            state.continuation?.yield()
        }
    }

    /// PostgreSQL notified a push (its payload, read as a ``FleetNotice``); the worker applies
    /// the rows it carries, or skips its own pushes, without a fetch when no version is missing.
    /// A payload that is not ours means: fetch.
    func notified(_ notice: FleetNotice?) {
        guard let notice else { return remoteChange() }
        state.withLock { state in
            state.notices.append(notice)
            state.continuation?.yield()
        }
    }

    /// The session's `LISTEN` is in place.
    func listening() {
        state.withLock { state in
            state.listening = true
            state.continuation?.yield()
        }
    }

    /// The worker has applied (or skipped as its own) every version up to `position`.
    func reached(_ position: Int64) {
        state.withLock { $0.position = position }
    }

    /// The version the worker last said it reached (see ``reached(_:)``).
    var position: Int64 { state.withLock { $0.position } }

    /// Whether the current session's `LISTEN` is in place.
    var isListening: Bool { state.withLock { $0.listening } }

    /// Starts a connection's session: what was signalled before is dropped (a session begins
    /// with a full comparison and a full fetch), and a new wake-up sequence is returned.
    func beginSession() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let previous = state.withLock { state in
            defer {
                state.dirty.removeAll()
                state.remote = false
                state.primaryCheck = false
                state.notices.removeAll()
                state.listening = false
                state.continuation = continuation
            }
            return state.continuation
        }
        previous?.finish()
        return stream
    }

    /// What was signalled since the last ``take()``.
    struct Taken {
        var dirty: Set<HashedKey>
        var remote: Bool
        var notices: [FleetNotice]
        /// The fetch is a relayed session's periodic check of the primary, and the relay then
        /// held versions up to this one; nil otherwise.
        var relayNewestAtPrimaryCheck: Int64? = nil

        mutating func merge(_ other: Taken) {
            dirty.formUnion(other.dirty)
            remote = remote || other.remote
            relayNewestAtPrimaryCheck = relayNewestAtPrimaryCheck ?? other.relayNewestAtPrimaryCheck
            notices += other.notices
        }
    }

    /// Takes what was signalled since the last call.
    func take() -> Taken {
        state.withLock { state in
            defer {
                state.dirty.removeAll(keepingCapacity: true)
                state.remote = false
                state.primaryCheck = false
                state.notices.removeAll(keepingCapacity: true)
            }
            return Taken(dirty: state.dirty, remote: state.remote, notices: state.notices,
                         relayNewestAtPrimaryCheck: state.primaryCheck ? state.relayNewest : nil)
        }
    }
}
#endif
