#if Fleet
import PostgresNIO
import SQLiteDefaults

extension DefaultsPostgresSync {
    /// Joins the table again from all its rows (see ``LocalReplica/rejoin(_:identity:forgettingShadows:)``),
    /// then pushes what only this file holds, numbered above `floor` (the position this file
    /// had reached), and fetches that back. Returns the new position.
    func rejoin(_ link: SessionLink, floor: Int64, forgettingShadows: Bool, book: inout SessionBook) async throws -> Int64 {
        let rows = try await timed(on: link.connection) { try await link.fleet.changes(after: 0, on: link.connection) }
        let identity = link.identity
        let (position, refusals) = try await link.replica.onStoreThread { replica in
            var refusals: [(key: String, reason: String)] = []
            let position = try replica.rejoin(rows, identity: identity, forgettingShadows: forgettingShadows) {
                refusals.append(($0, $1))
            }
            return (position, refusals)
        }
        reportRefusals(refusals)
        _ = try await push(among: nil, link, book: &book, floor: floor)
        return try await fetch(after: position, link, book: &book)
    }

    /// Applies `rows` (see ``LocalReplica/apply(_:identity:position:asNewMember:onRefused:)``),
    /// then reports the rows the local declarations refused and counts the rest as applied.
    func apply(_ rows: [FleetRow], _ link: SessionLink, position: Int64, asNewMember: Bool, committedMicroseconds: Int64?) async throws {
        let identity = link.identity
        let refusals = try await link.replica.onStoreThread { replica in
            var refusals: [(key: String, reason: String)] = []
            try replica.apply(rows, identity: identity, position: position, asNewMember: asNewMember) {
                refusals.append(($0, $1))
            }
            return refusals
        }
        reportRefusals(refusals)
        metrics.applied(rows.count - refusals.count, committedMicroseconds: committedMicroseconds)
    }

    /// Says, for each row the local declarations refused, that the local value stays, and
    /// counts them. After the transaction committed: a rolled-back one is tried again, and
    /// must not have said so twice.
    private func reportRefusals(_ refusals: [(key: String, reason: String)]) {
        for refusal in refusals {
            logger.warning("fleet sync: a row from PostgreSQL was not applied, the local value stays: \(refusal.reason)",
                           metadata: ["key": "\(refusal.key)"])
        }
        metrics.refused(refusals.count)
    }

    /// Fetches the rows after `position` and applies them; returns the new position.
    ///
    /// Rows that are all this session's own pushes coming back are not applied: the file
    /// already holds them and their shadows. The position then moves in memory only, and is
    /// written with the next real apply (after a restart those rows are fetched again and
    /// skipped by their versions).
    ///
    /// - Throws: ``FleetTableChanged`` when the table is no longer the one this session is in
    ///   step with (another identity, or versions gone below `position`), before applying
    ///   anything; the connection's errors.
    func fetch(after position: Int64, _ link: SessionLink, book: inout SessionBook, asNewMember: Bool = false,
               within timeout: Duration? = nil) async throws -> Int64 {
        metrics.fetched()
        let news = try await timed(on: link.connection, within: timeout) {
            try await link.fleet.news(after: position, on: link.connection)
        }
        if news.identity != link.identity { throw FleetTableChanged.replaced }
        if news.newest < position { throw FleetTableChanged.wentBack }
        let rows = news.rows
        guard let last = rows.last else {
            if asNewMember {
                let identity = link.identity
                _ = try await link.replica.onStoreThread { try $0.apply([], identity: identity, position: position, asNewMember: true) }
            }
            return position
        }
        if !asNewMember, rows.allSatisfy({ book.pushed.contains($0.version) }) {
            book.pushed = book.pushed.filter { $0 > last.version }
            return last.version
        }
        try await apply(rows, link, position: last.version, asNewMember: asNewMember, committedMicroseconds: nil)
        book.pushed = book.pushed.filter { $0 > last.version }
        return last.version
    }

    /// Pushes the keys among `keys` (all keys when nil) whose rows differ from what the
    /// fleet's table holds, as far as this file knows. Returns whether anything was pushed.
    func push(among keys: Set<HashedKey>?, _ link: SessionLink, book: inout SessionBook, floor: Int64 = 0,
              within timeout: Duration? = nil) async throws -> Bool {
        var rows = try await link.replica.onStoreThread { try $0.pending(among: keys) }
        var refused = 0
        rows.removeAll { row in
            // PostgreSQL's TEXT cannot hold NUL; such a key stays on this machine.
            guard row.key.utf8.contains(0) else { return false }
            if book.skipped.insert(HashedKey(row.key)).inserted {
                refused += 1
                logger.warning("fleet sync: a key containing NUL cannot be stored in PostgreSQL; it stays on this machine",
                               metadata: ["key": "\(row.key.debugDescription)"])
            }
            return true
        }
        metrics.refused(refused)
        guard !rows.isEmpty else { return false }
        let toPush = rows
        // Before it is sent: a key pushed for the first time gets a shadow saying so, so that a
        // push that lands and is never recorded here (a stop or a crash in between) leaves the
        // key pending rather than unknown (see ReplicaTransaction.markPushing).
        try await link.replica.onStoreThread { try $0.markPushing(toPush) }
        // A push too large for the short time-out gets the long one.
        let deadline = rows.count <= FleetTable.rowsPerStatement ? timeout : nil
        let version = try await timed(on: link.connection, within: deadline) { [origin] in
            if let function = link.pushFunction {
                try await link.fleet.pushInOneRoundTrip(toPush, origin: origin, floor: floor, through: function, on: link.connection)
            } else {
                try await link.fleet.pushInTransaction(toPush, origin: origin, floor: floor, on: link.connection)
            }
        }
        // Recorded even when the sync is being stopped: the rows stand in the table now, and a
        // key pushed for the first time whose shadow is not written looks, once deleted here,
        // like a key this file never had — the fleet's row would then come back and undo the
        // deletion (seen once in FleetTests.longAbsence: stopped right after a push). A task of
        // its own does not inherit this one's cancellation; the store's thread still runs it in
        // order, and a closed store ends it as any call.
        let replica = link.replica
        try await Task { try await replica.onStoreThread { try $0.recordPushed(toPush, version: version) } }.value
        book.pushed.insert(version)
        metrics.pushed(rows.count)
        return true
    }

    /// Runs `body` on `connection`, failing with `.unreachable` (and closing the connection)
    /// when it takes longer than `timeout` (the operation time-out when nil).
    func timed<Result: Sendable>(on connection: PostgresConnection, within timeout: Duration? = nil,
                                 _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        try await Deadline.run(within: timeout ?? timing.operationTimeout, closing: connection, body)
    }
}
#endif
