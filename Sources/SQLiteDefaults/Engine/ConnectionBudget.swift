import Foundation
import Synchronization

/// Keeps the database files a process holds open within its descriptor limit.
///
/// Every open file-backed store holds three descriptors (the database, its `-wal` and its
/// `-shm`). A process with thousands of stores — one per tenant, say — would run out of
/// descriptors long before memory, and then fail to open anything, sockets included. So the
/// process keeps at most ``limit`` connections open; past that, the least recently used idle
/// stores close their connection (``StoreEngine/suspendIfIdle()``) and reopen it on their next
/// use that needs SQL. Cached reads and observation need no connection: the change monitor
/// watches files by path, and a suspended store reopens only when its files changed.
final class ConnectionBudget: Sendable {
    static let shared = ConnectionBudget()

    /// Open connections the process keeps at most: two thirds of the descriptors the soft
    /// `RLIMIT_NOFILE` leaves after 128 for everything else, three per connection — 4,416
    /// with a limit of 20,000, 199 with the common 1,024. At least 16.
    let limit: Int

    private struct Entry {
        weak var engine: StoreEngine?
    }

    private let open = Mutex<[ObjectIdentifier: Entry]>([:])
    /// A clock that only counts uses: which store was used last.
    private let clock = Atomic<UInt64>(0)

    private init() {
        var limits = rlimit()
        let soft = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 && limits.rlim_cur != rlim_t.max
            ? Int(clamping: limits.rlim_cur) : 65_536
        limit = max(16, (soft - 128) * 2 / 3 / 3)
    }

    /// The next tick of the use clock.
    func tick() -> UInt64 {
        clock.wrappingAdd(1, ordering: .relaxed).newValue
    }

    func opened(_ engine: StoreEngine) {
        open.withLock { $0[ObjectIdentifier(engine)] = Entry(engine: engine) }
    }

    func closed(_ engine: StoreEngine) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(engine)) }
    }

    /// Whether a store of this process holds an open connection to the file `realPath`.
    func hasConnection(toRealPath realPath: String) -> Bool {
        open.withLock { open in open.values.contains { $0.engine?.realPath == realPath } }
    }

    /// Before opening a connection: when the process is at its budget (or, `urgently`, out of
    /// descriptors), suspends the least recently used idle connections. A store in use (its
    /// lock held, or in a transaction) is skipped, never waited for.
    func makeRoom(urgently: Bool = false) {
        let candidates: [StoreEngine] = open.withLock { open in
            let excess = open.count - limit + 1
            guard urgently || excess > 0 else { return [] }
            // Suspend a tenth of the budget at once, so the scan is paid once per many opens.
            let wanted = max(urgently ? 16 : 0, excess + limit / 10)
            var live: [(use: UInt64, engine: StoreEngine)] = []
            live.reserveCapacity(open.count)
            for (id, entry) in open {
                if let engine = entry.engine { live.append((engine.lastUse, engine)) } else { open[id] = nil }
            }
            live.sort { $0.use < $1.use }
            return live.prefix(wanted).map(\.engine)
        }
        for engine in candidates { engine.suspendIfIdle() }
    }
}
