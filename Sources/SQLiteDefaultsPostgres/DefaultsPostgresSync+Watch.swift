#if Fleet
import Logging
import SQLiteDefaults

extension DefaultsPostgresSync {
    /// Says why the sync is out of step when nothing else has within ``Timing/silenceLimit``:
    /// one line per spell, never one per check.
    ///
    /// A session's failure says so itself, at once. What says nothing is waiting: for a
    /// connection the client's pool does not lend (it retries a refused connection quietly, for
    /// up to a minute, before it fails the request), or for a session that connected and is
    /// still catching up. Runs until cancelled.
    func watchStep(table: FleetTableName) async throws {
        // Connections PostgreSQL accepted in this spell while the client still lent none: a slot
        // freed a moment ago, which the pool (between two of its retries) may take or lose again.
        var acceptedProbes = 0
        while true {
            try await Task.sleep(for: .milliseconds(250))
            guard status.isUnsaid(for: timing.silenceLimit) else {
                acceptedProbes = 0
                continue
            }
            let holdsConnection = status.holdsConnection
            var failure = await diagnose()
            if failure == nil, !holdsConnection { failure = await diagnoseRelay() }
            // Said meanwhile (a failure, or in step at last): nothing to add.
            guard status.isUnsaid(for: timing.silenceLimit) else { continue }
            if failure == nil, !holdsConnection, serverURL != nil, acceptedProbes < 2 {
                // Ask again shortly, for PostgreSQL's reason or for the pool's connection.
                acceptedProbes += 1
                continue
            }
            if let failure {
                if report(.failing(failure.code)) {
                    logger.warning("fleet sync: \(failure.message); retrying with back-off", metadata: ["table": "\(table)"])
                }
            } else if holdsConnection {
                status.markSaid()
                logger.info("fleet sync: not yet in step with PostgreSQL table \(table): still catching up, on a working connection")
            } else {
                status.markSaid()
                let probed = serverURL == nil ? "" : " (PostgreSQL accepted a connection of this sync's own)"
                logger.warning("fleet sync: not in step: the PostgreSQL client has lent no connection for \(timing.silenceLimit)\(probed); waiting for one",
                               metadata: ["table": "\(table)"])
            }
        }
    }

    /// Why PostgreSQL refuses this sync a connection, in its own words, learnt by connecting
    /// once on the sync's own (see ``probe(_:logger:)``); `nil` when it accepted, or when the
    /// sync was not given the server's URL. A server that does not answer within
    /// ``Timing/diagnosisTimeout`` is a reason too.
    func diagnose() async -> DefaultsError? {
        guard let serverURL else { return nil }
        return await diagnose(serverURL)
    }

    /// Why the relay the sync listens on refuses it a connection, in PostgreSQL's words (see
    /// ``diagnose()``); `nil` when it accepted, or when the fleet has no relays.
    func diagnoseRelay() async -> DefaultsError? {
        guard !relays.isEmpty else { return nil }
        let url = relays[relayIndex.withLock { $0 }]
        return await diagnose(url).map { RelayFailure($0).failure }
    }

    private func diagnose(_ url: PostgresURL) async -> DefaultsError? {
        do {
            return try await Deadline.run(within: timing.diagnosisTimeout, onTimeout: {}) {
                await Self.probe(url, logger: Self.quietLogger)
            }
        } catch {
            return DefaultsError(.unreachable, "PostgreSQL did not answer a new connection within \(timing.diagnosisTimeout)")
        }
    }

    /// PostgresNIO's own messages about the sync's extra connections (a diagnosis, a relay's
    /// client) are not the sync's to say: it says what they mean, once.
    static var quietLogger: Logger {
        Logger(label: "SQLiteDefaultsPostgres.quiet") { _ in SwiftLogNoOpLogHandler() }
    }
}
#endif
