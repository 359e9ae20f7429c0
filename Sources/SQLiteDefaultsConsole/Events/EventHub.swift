#if Console
import Foundation
import SQLiteDefaults
import Synchronization

/// The console's event-stream clients. Each reads the store's change feed for itself
/// (``DefaultsStore/changes(since:keys:prefix:)``): every committed change, from any writer,
/// becomes one event whose `id:` is its history sequence, so a client that reconnects with
/// `Last-Event-ID` receives exactly what it missed — the file's history is the buffer, not this
/// process's memory. What a client has not yet written out waits in its ``EventQueue``
/// (bounded; see there).
final class EventHub: Sendable {
    private struct Clients {
        var queues: [ObjectIdentifier: (queue: EventQueue, token: String?)] = [:]
        /// Open streams per token name (the owner, nil, is not counted).
        var perToken: [String: Int] = [:]
        /// The one look at the declarations every stream shares, while any stream is open.
        var declarationsWatch: Task<Void, Never>?
    }

    private let clients = Mutex(Clients())
    private let store: DefaultsStore
    /// Pending bytes one client may fall behind before its stream is ended (it reconnects with
    /// `Last-Event-ID` and reads the rest from the history).
    let perClientLimit: Int
    /// Streams one token may hold open at once.
    let perTokenLimit: Int

    /// Reads the declarations the streams announce changes of (on the store's thread).
    private let declarations: @Sendable () throws -> [ConsoleDeclaration]

    /// How often the streams' shared look for a key declared or undeclared runs.
    static let declarationCheckInterval = Duration.seconds(1)

    init(store: DefaultsStore, perClientLimit: Int, perTokenLimit: Int,
         declarations: @escaping @Sendable () throws -> [ConsoleDeclaration]) {
        self.store = store
        self.perClientLimit = perClientLimit
        self.perTokenLimit = max(1, perTokenLimit)
        self.declarations = declarations
    }

    /// A new client's queue, registered until ``remove(_:)``, fed by a change feed from the
    /// change after `lastEventID` (from the newest change when nil). A position the history no
    /// longer keeps (or one newer than the file's newest change) is one `event: compacted`,
    /// `data: {"oldest": N, "newest": M}` (``compacted(oldest:newest:)``), after which the feed goes on from the newest change: the client
    /// reloads what it shows.
    ///
    /// `token` is the name of the token the stream is opened with (nil for the owner). Returns
    /// nil, registering nothing, when that token already holds ``perTokenLimit`` streams.
    ///
    /// Async: where a stream without `lastEventID` starts is the history's newest change, read
    /// on the store's thread, never on the pool the request runs on.
    func subscribe(after lastEventID: Int64?, token: String?) async -> (queue: EventQueue, feed: Task<Void, Never>)? {
        let queue = EventQueue(limit: perClientLimit)
        let admitted = clients.withLock { clients -> Bool in
            if let token {
                let open = clients.perToken[token, default: 0]
                guard open < perTokenLimit else { return false }
                clients.perToken[token] = open + 1
            }
            clients.queues[ObjectIdentifier(queue)] = (queue, token)
            if clients.declarationsWatch == nil { clients.declarationsWatch = watchDeclarations() }
            return true
        }
        guard admitted else { return nil }
        let store = self.store
        // Where the stream starts is fixed now, while the request is handled, not when the
        // feed's task first runs: under load that can be after changes the client must get.
        let start: Int64
        if let lastEventID {
            start = lastEventID
        } else {
            start = await (try? store.newestSequence()) ?? 0
        }
        let feed = Task {
            var position = start
            while !Task.isCancelled {
                do {
                    for try await entry in store.changes(since: position) {
                        position = entry.sequence
                        queue.push(Self.frame(entry, store: store))
                    }
                    return  // the store closed, or the client went (cancelled)
                } catch let error as DefaultsError where error.code == .historyCompacted || error.code == .historyRewound {
                    position = await (try? store.newestSequence()) ?? position
                    queue.push(Self.compacted(oldest: error.oldestKeptSequence, newest: position))
                } catch {
                    queue.finish()
                    return
                }
            }
        }
        return (queue, feed)
    }

    /// The `event: compacted` frame: `oldest` the oldest change the history keeps (left out when
    /// it keeps none: there is no such change to name), `newest` the change the stream goes on
    /// after, also its `id:`.
    static func compacted(oldest: Int64?, newest: Int64) -> String {
        let oldestMember = oldest.map { "\"oldest\":\($0)," } ?? ""
        return "id: \(newest)\nevent: compacted\ndata: {\(oldestMember)\"newest\":\(newest)}\n\n"
    }

    /// Declarations have no observer: one task looks for a change each second while any stream
    /// is open (not one per stream, each reading the declarations), on the store's thread (not
    /// the pool's), and tells every stream (`event: declarations`) so that its page reloads
    /// types, defaults and summaries. It ends once no stream is open; the next one starts it
    /// again. Called with the clients locked.
    private func watchDeclarations() -> Task<Void, Never> {
        let store = self.store, read = self.declarations
        return Task { [weak self] in
            var last = try? await store.onStoreThread { try read() }
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.declarationCheckInterval)
                guard let self else { return }
                // No stream left: end, in the same lock a new stream would start another in.
                let anyOpen = self.clients.withLock { clients -> Bool in
                    if clients.queues.isEmpty { clients.declarationsWatch = nil }
                    return !clients.queues.isEmpty
                }
                guard anyOpen else { return }
                let now = try? await store.onStoreThread { try read() }
                guard now != last else { continue }
                last = now
                let current = self.clients.withLock { $0.queues.values.map(\.queue) }
                for queue in current { queue.push("event: declarations\ndata: {}\n\n") }
            }
        }
    }

    /// Unregisters a client's queue (its token may open another stream).
    func remove(_ queue: EventQueue) {
        clients.withLock { clients in
            guard let removed = clients.queues.removeValue(forKey: ObjectIdentifier(queue)), let token = removed.token else { return }
            let open = clients.perToken[token, default: 1] - 1
            clients.perToken[token] = open > 0 ? open : nil
        }
    }

    /// How many clients are connected now.
    var clientCount: Int { clients.withLock { $0.queues.count } }

    /// Ends every client's stream (the server is stopping).
    func finishAll() {
        let all = clients.withLock { clients -> [EventQueue] in
            clients.declarationsWatch?.cancel()
            clients.declarationsWatch = nil
            return clients.queues.values.map(\.queue)
        }
        for queue in all { queue.finish() }
    }

    /// One change as an event: `id:` its history sequence, `data:` its JSON. A secret's value
    /// is masked by the history itself (its entries keep none); a value too large for the
    /// history to keep is read from the row as it is now.
    static func frame(_ entry: DefaultsHistoryEntry<SQLiteValue>, store: DefaultsStore) -> String {
        let value: SQLiteValue?
        switch entry.value {
        case .value(let stored), .undecodable(let stored): value = stored
        case .removed, .secret: value = nil
        case .tooLargeToKeep: value = try? store.value(for: DefaultsKey<SQLiteValue?>(entry.key))
        }
        let origin: DefaultsChangeOrigin = entry.writer.kind == .library && entry.writer.pid == getpid() ? .local : .external
        let change = AnyDefaultsChange(key: entry.key, newValue: entry.value.isSecret ? .text("") : value,
                                       origin: origin, writer: entry.writer)
        let json = ConsoleJSON.event(seq: Int(entry.sequence), change: change,
                                     time: entry.date.timeIntervalSince1970, secret: entry.value.isSecret)
        return "id: \(entry.sequence)\ndata: \(json)\n\n"
    }
}
#endif
