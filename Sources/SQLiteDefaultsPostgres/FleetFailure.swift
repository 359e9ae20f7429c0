#if Fleet
import NIOCore
import PostgresNIO
import SQLiteDefaults
import _ConnectionPoolModule

/// Turns what PostgresNIO, NIO and the pool throw into `DefaultsError`: `.unreachable` for
/// what retrying may cure, `.remoteRejected` for an answer that will not change by itself,
/// `.incompatibleTable` for a table of another shape. Messages are one line and never carry
/// the password (PostgresNIO's own descriptions hide the server's text on purpose).
enum FleetFailure {
    static func classify(_ error: any Error) -> DefaultsError {
        if let error = error as? DefaultsError { return error }
        if let error = error as? RelayFailure { return error.failure }
        if let error = error as? PSQLError { return classify(error) }
        if let error = error as? ConnectionPoolError {
            // In words: the error's own description is a path of internal type names.
            if error == .connectionCreationCircuitBreakerTripped {
                return DefaultsError(.unreachable, "cannot connect to PostgreSQL: the client's new connections kept failing, and it stopped waiting for one")
            }
            if error == .poolShutdown { return DefaultsError(.unreachable, "the PostgreSQL client was shut down") }
            return DefaultsError(.unreachable, "the request for a PostgreSQL connection was cancelled")
        }
        return DefaultsError(.unreachable, "cannot reach PostgreSQL: \(oneLine(String(describing: error)))")
    }

    /// Whether `error` is the client's pool giving up a request (it says nothing of why).
    static func isFromPool(_ error: any Error) -> Bool {
        error is ConnectionPoolError
    }

    private static func classify(_ error: PSQLError) -> DefaultsError {
        if error.code == .server, let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = oneLine(info[.message] ?? "an error")
            switch state {
            case "28000", "28P01":
                return DefaultsError(.remoteRejected, "PostgreSQL refused the login: \(message)")
            case "3D000":
                return DefaultsError(.remoteRejected, "PostgreSQL has no such database: \(message)")
            case "3F000":
                // A schema dropped between the check in FleetTable.resolve and CREATE TABLE.
                return DefaultsError(.invalidConfiguration, "PostgreSQL has no such schema: \(message)")
            case "42501":
                return DefaultsError(.remoteRejected, "PostgreSQL denied access: \(message)")
            case _ where state == "42P10" || state.hasPrefix("23"):
                return DefaultsError(.incompatibleTable, "the fleet table does not accept this library's rows (\(state): \(message))")
            case _ where state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53"):
                return DefaultsError(.unreachable, "PostgreSQL is not available: \(message)")
            default:
                // A deadlock, a serialization failure, a cancelled statement, an internal
                // error: worth another try.
                return DefaultsError(.unreachable, "PostgreSQL failed the request (\(state)): \(message)")
            }
        }
        let cause = error.underlying.map { ": " + oneLine(String(describing: $0)) } ?? ""
        switch error.code {
        case .sslUnsupported:
            return DefaultsError(.remoteRejected, "the PostgreSQL server does not support TLS, which the URL requires (sslmode=require)")
        case .authMechanismRequiresPassword:
            return DefaultsError(.remoteRejected, "PostgreSQL asks for a password and none was given (in a password file, PGPASSWORD, ~/.pgpass or the URL)")
        case .unsupportedAuthMechanism, .saslError:
            return DefaultsError(.remoteRejected, "PostgreSQL's authentication failed (\(error.code))\(cause)")
        case .connectionError:
            return DefaultsError(.unreachable, "cannot connect to PostgreSQL\(cause)")
        default:
            return DefaultsError(.unreachable, "lost the connection to PostgreSQL (\(error.code))\(cause)")
        }
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
#endif
