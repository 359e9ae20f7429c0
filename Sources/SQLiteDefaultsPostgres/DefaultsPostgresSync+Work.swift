#if Fleet
import PostgresNIO
import SQLiteDefaults

/// What one session works with: its connection, the resolved table, the local file's side,
/// the table's identity, and how it pushes.
struct SessionLink: Sendable {
    let connection: PostgresConnection
    let fleet: FleetTable
    let replica: LocalReplica
    let identity: String
    /// The push function in place (one round trip per push): the session's own, or the one a
    /// relayed fleet's primary keeps; nil when pushes take four.
    let pushFunction: String?
}

/// What a session does with what it has in hand before it does any other work: the book-keeping
/// of this session's own pushes and of keys that cannot travel.
struct SessionBook {
    /// Keys containing NUL, warned about once.
    var skipped: Set<HashedKey> = []
    /// The versions this session pushed: rows of only these coming back need no apply.
    var pushed: Set<Int64> = []
}

extension DefaultsPostgresSync {
    /// The session's work once the connection is set up: catch up both ways, then push and
    /// apply as signalled, until the connection fails or the sync is cancelled.
    func work(_ link: SessionLink, wakeups: AsyncStream<Void>) async throws {
        // Catch up only once LISTEN is in place, so no notification falls between the two.
        let listenDeadline = ContinuousClock.now + timing.operationTimeout
        for await _ in wakeups {
            if signals.isListening { break }
            if ContinuousClock.now > listenDeadline {
                try? await link.connection.close()
                throw DefaultsError(.unreachable, "PostgreSQL did not confirm LISTEN within \(timing.operationTimeout)")
            }
        }
        try Task.checkCancellation()
        var book = SessionBook()
        var position = try await catchUp(link, book: &book)
        signals.reached(position)
        if report(.connected) {
            logger.info("fleet sync: connected; in step with PostgreSQL table \(link.fleet.name)")
        }
        var lastPush: ContinuousClock.Instant?
        var relayLag = RelayLagWatch()
        for await _ in wakeups {
            if store.isClosed {
                throw DefaultsError(.closed, "the store was closed, so the fleet sync ended", path: store.path)
            }
            // A file moved over the store's (or deleted) leaves the store refusing every call,
            // and it hears no more commits: a sync that went on would be deaf. Checked at every
            // wake-up, the safety fetch included, so it ends within one interval.
            if let failure = store.lastReportedError, failure.code == .databaseReplaced { throw failure }
            var taken = signals.take()
            // What the notifications carry is applied first: it costs no round trip, and a
            // push that follows then starts from the newest state.
            position = try await receive(taken.notices, link, position: position, book: &book, mustFetch: &taken.remote)
            if !taken.dirty.isEmpty, let lastPush, ContinuousClock.now < lastPush + timing.minimumPushInterval {
                try await Task.sleep(until: lastPush + timing.minimumPushInterval)
                let more = signals.take()
                position = try await receive(more.notices, link, position: position, book: &book, mustFetch: &taken.remote)
                taken.dirty.formUnion(more.dirty)
                taken.remote = taken.remote || more.remote
            }
            if !taken.dirty.isEmpty, try await push(among: taken.dirty, link, book: &book, within: timing.stallTimeout) {
                lastPush = .now
            }
            if taken.remote {
                position = try await fetch(after: position, link, book: &book, within: timing.stallTimeout)
            }
            signals.reached(position)
            if let relay = taken.relayNewestAtPrimaryCheck, let said = relayLag.checked(primary: position, relay: relay) {
                if said.lagging {
                    logger.warning("fleet sync: the relay is \(said.behind) versions behind the primary and not catching up (its subscription stopped, or it lags); news comes from the primary's check every \(timing.primaryCheckInterval) until it does",
                                   metadata: ["table": "\(link.fleet.name)"])
                } else {
                    logger.info("fleet sync: the relay caught up with the primary", metadata: ["table": "\(link.fleet.name)"])
                }
            }
        }
        throw CancellationError()
    }

    /// The first exchange of a session: compare, rejoin or join, push what differs, fetch what
    /// is new. Returns the position reached.
    private func catchUp(_ link: SessionLink, book: inout SessionBook) async throws -> Int64 {
        let identity = link.identity
        let membership = try await link.replica.onStoreThread { try $0.join(identity) }
        let adopting = adoptionPending.withLock { $0 }
        var inStep = true
        if !membership.isNew, !adopting {
            let versions = try await timed(on: link.connection) { try await link.fleet.versions(on: link.connection) }
            inStep = try await link.replica.onStoreThread { try $0.isInStep(with: versions, position: membership.position) }
        }
        if adopting {
            let position = try await rejoin(link, floor: membership.position, forgettingShadows: true, book: &book)
            adoptionPending.withLock { $0 = false }
            return position
        }
        if !inStep {
            logger.warning("fleet sync: the PostgreSQL table \(link.fleet.name) went back in time (restored from a backup, or a failover to a replica that lagged behind); rejoining it: taking its newer rows, pushing again what it lost")
            return try await rejoin(link, floor: membership.position, forgettingShadows: false, book: &book)
        }
        if membership.isNew {
            if membership.replacesAnother {
                logger.warning("fleet sync: the PostgreSQL table \(link.fleet.name) is not the one this file was in step with (dropped and created again, or another server); joining it anew: taking its values, then pushing the keys only this file has")
            }
            // The fleet's values first; then what only this file has.
            var none = SessionBook()
            let position = try await fetch(after: membership.position, link, book: &none, asNewMember: true)
            _ = try await push(among: nil, link, book: &book)
            return position
        }
        _ = try await push(among: nil, link, book: &book)
        return try await fetch(after: membership.position, link, book: &book)
    }

    /// Applies what notifications carry, in version order, while no version is missing:
    /// this session's own pushes move the position only; others' rows are applied in one
    /// transaction. A notification that carries no rows (too large, or from an older
    /// version of this library), or one past a gap, sets `mustFetch`, and nothing after it
    /// is applied here: the fetch takes it all. Returns the new position.
    func receive(_ notices: [FleetNotice], _ link: SessionLink, position: Int64, book: inout SessionBook,
                 mustFetch: inout Bool) async throws -> Int64 {
        guard !mustFetch, !notices.isEmpty else { return position }
        var reached = position
        var rows: [FleetRow] = []
        var newest: Int64?
        for notice in notices.sorted(by: { $0.version < $1.version }) where notice.version > reached {
            // Versions are dense (each push takes the largest plus one under the table's
            // lock), so the next one is always `reached + 1`: anything else means a push not
            // heard of (a rejoin's floor, a notification lost with a connection).
            guard notice.version == reached + 1 else {
                mustFetch = true
                break
            }
            if book.pushed.contains(notice.version) {
                reached = notice.version
                continue
            }
            guard let carried = notice.rows, timing.appliesCarriedRows else {
                mustFetch = true
                break
            }
            rows += carried
            reached = notice.version
            if let micros = notice.committedMicroseconds { newest = max(newest ?? micros, micros) }
        }
        book.pushed = book.pushed.filter { $0 > reached }
        // Only this session's own pushes: the file already holds them; the position moves in
        // memory and is written with the next real apply.
        guard !rows.isEmpty else { return reached }
        try await apply(rows, link, position: reached, asNewMember: false, committedMicroseconds: newest)
        return reached
    }
}
#endif
