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

extension DefaultsPostgresSync {
    /// A session of a relayed fleet: `connection` (the pooler's) for pushes and fetches, a
    /// connection from `relay` for `LISTEN` and the safety fetch's question.
    func relaySession(on connection: PostgresConnection, relay: PostgresClient, fleet: FleetTable, replica: LocalReplica) async throws {
        do {
            try await relay.withConnection { listener in
                self.status.holdsConnection = true
                defer { self.status.holdsConnection = false }
                do {
                    try await self.session(on: connection, listeningOn: listener, fleet: fleet, replica: replica)
                } catch {
                    if !Task.isCancelled, error is RelayFailure { try? await listener.close() }
                    throw error
                }
            }
        } catch let error as RelayFailure {
            throw error
        } catch let error as DefaultsError {
            throw error
        } catch {
            // The relay's client could not lend a connection (the pooler's is in hand).
            if Task.isCancelled { throw error }
            throw RelayFailure(error)
        }
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
                    signals.remoteChange()
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
