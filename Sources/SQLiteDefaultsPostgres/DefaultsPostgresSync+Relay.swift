#if Fleet
import PostgresNIO
import SQLiteDefaults

/// A failure on the connection to a relay: the next session tries the next relay.
struct RelayFailure: Error {
    let failure: DefaultsError
    /// What was thrown, before it was put in words.
    let cause: any Error

    init(_ cause: any Error) {
        self.cause = cause
        let failure = FleetFailure.classify(cause)
        self.failure = DefaultsError(failure.code, failure.message.hasPrefix("the relay") ? failure.message : "the relay: " + failure.message)
    }
}

/// Whether the relay keeps up with the primary, judged at each periodic check of the primary:
/// a relay that has not reached, by one check, what the primary held at the check before (a
/// stopped subscription, a relay far behind) is said once, and said again when it catches up.
/// Meanwhile the machine is kept in step by those checks, at most an interval late.
struct RelayLagWatch {
    private var primaryAtLastCheck: Int64?
    private(set) var lagging = false

    /// What to say after a check that found the primary at `primary` and the relay at `relay`, if anything.
    mutating func checked(primary: Int64, relay: Int64) -> (lagging: Bool, behind: Int64)? {
        defer { primaryAtLastCheck = primary }
        guard let previous = primaryAtLastCheck else { return nil }
        if relay < previous, !lagging {
            lagging = true
            return (true, primary - relay)
        }
        if relay >= previous, lagging {
            lagging = false
            return (false, max(0, primary - relay))
        }
        return nil
    }
}

extension DefaultsPostgresSync {
    /// A session of a relayed fleet: `connection` (the pooler's) for pushes and fetches, a
    /// connection from `relay` for `LISTEN` and the safety fetch's question.
    func relaySession(on connection: PostgresConnection, relay: PostgresClient, fleet: FleetTable, replica: LocalReplica) async throws {
        // What the session throws is passed on as it is (a failure of the pooler's connection is
        // not the relay's); only a relay that lends no connection is put as the relay's failure.
        let outcome: Result<Void, any Error>
        do {
            outcome = try await relay.withConnection { listener in
                self.status.holdsConnection = true
                defer { self.status.holdsConnection = false }
                do {
                    try await self.session(on: connection, listeningOn: listener, fleet: fleet, replica: replica)
                    return .success(())
                } catch {
                    if !Task.isCancelled, error is RelayFailure { try? await listener.close() }
                    return .failure(error)
                }
            }
        } catch {
            if Task.isCancelled || error is CancellationError { throw error }
            throw RelayFailure(error)
        }
        try outcome.get()
    }

    /// The relayed session's safety fetch: checks once that the relay holds the table's copy
    /// with its trigger, then, every safety interval (jittered), asks the relay for its newest
    /// version, and wakes a fetch (from the primary) only when it is ahead of this machine:
    /// a notification lost or not yet heard. Every primary-check interval it wakes a fetch all
    /// the same. Throws ``RelayFailure`` when the relay fails or is not one.
    func checkRelay(_ listener: PostgresConnection, fleet: FleetTable) async throws {
        do {
            let isRelay = try await timed(on: listener) { try await fleet.isRelay(on: listener) }
            guard isRelay else {
                throw DefaultsError(.invalidConfiguration, "the relay holds no relayed copy of the table \(fleet.name) (no table, or no trigger \(FleetTable.relayTriggerName) enabled ALWAYS): set it up with `prefs relay` or DefaultsFleetRelay.install")
            }
            var nextPrimaryCheck = ContinuousClock.now + Self.jittered(timing.primaryCheckInterval)
            while true {
                try await Task.sleep(for: Self.jittered(timing.safetyFetchInterval))
                let newest = try await timed(on: listener, within: timing.stallTimeout) { try await fleet.newest(on: listener) }
                if ContinuousClock.now >= nextPrimaryCheck {
                    nextPrimaryCheck = .now + Self.jittered(timing.primaryCheckInterval)
                    signals.primaryCheckDue(relayNewest: newest)
                } else if newest > signals.position {
                    signals.remoteChange()
                }
            }
        } catch let error as DefaultsError where error.code == .invalidConfiguration {
            throw RelayFailure(error)
        } catch {
            if Task.isCancelled || error is CancellationError { throw error }
            throw RelayFailure(error)
        }
    }
}
#endif
