#if Fleet
import Logging
import PostgresNIO
import SQLiteDefaults

extension DefaultsPostgresSync {
    /// Reports, as the sync's own first state, that PostgreSQL cannot be reached (what
    /// ``probe(_:logger:)`` found): one line now, and none again for the retries that follow.
    /// `prefs sync` calls it, since the client's pool retries quietly for a while before it
    /// gives up a request.
    package func reportUnreachable(_ failure: DefaultsError) {
        if report(.failing(failure.code)) {
            logger.warning("fleet sync: \(failure.message); retrying with back-off", metadata: ["table": "\(table)"])
        }
    }

    /// Connects once to the server `url` names and runs `SELECT 1`, to tell at start-up what
    /// retrying cannot cure (bad credentials, no such database: `.remoteRejected`) from what it
    /// may (`.unreachable`). Returns `nil` when the server answered.
    public static func probe(_ url: PostgresURL, logger: Logger = Logger(label: "SQLiteDefaultsPostgres")) async -> DefaultsError? {
        do {
            let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration, id: 1, logger: logger)
            do {
                try await connection.query("SELECT 1", logger: logger)
                try? await connection.close()
                return nil
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            return FleetFailure.classify(error)
        }
    }
}
#endif
