#if Prefs && Fleet
import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

/// `prefs sync --postgres URL [--password-file FILE] [--table NAME]`: the fleet sync as a sidecar.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep the database in step with other machines through a PostgreSQL table, until interrupted.",
        discussion: """
            Pushes every committed change of the database (from any writer) to the PostgreSQL \
            table, and applies the other machines' changes as they are notified (LISTEN/NOTIFY). \
            The table is created when missing. While PostgreSQL cannot be reached, local reads and \
            writes go on; changes are pushed when it returns. One line is printed on standard \
            error per change of state (connected, unreachable and why, in PostgreSQL's words), \
            not per retry; a sync out of step for 3 s with nothing said (such as waiting for a \
            connection slot) says why. The \
            password is taken, as libpq does, from --password-file, else PGPASSWORD, else \
            PGPASSFILE or ~/.pgpass (ignored unless private); a password in the URL works but is \
            visible to every local user, so it is warned about. When the database file is replaced \
            (moved over), the sync says so, reopens the file at its path and pushes its \
            differences. A bad URL, a password file that is not private, rejected credentials, a \
            missing database or schema or a table of another shape end it with one line and exit \
            status 1; SIGINT or SIGTERM end it with 0.

            In a large fleet (see `prefs relay`), --postgres names a pooler in front of the primary \
            (PgBouncer in transaction mode) and each --relay a relay: the sync pushes and fetches \
            through the pooler and listens on the relay its host and path pick, moving to the \
            next one when it fails.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("postgres"),
            help: ArgumentHelp("The server: postgres://USER@HOST[:PORT]/DATABASE[?sslmode=require].", valueName: "url"))
    var postgres: String

    @Option(name: .customLong("password-file"),
            help: ArgumentHelp("A file (mode 0600) whose first line is the PostgreSQL password.", valueName: "file"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("The PostgreSQL table shared by the fleet, TABLE or SCHEMA.TABLE.", valueName: "name"))
    var table = "defaults_fleet"

    @Option(name: .customLong("relay"),
            help: ArgumentHelp("A relay to listen on (repeatable); --postgres then names the pooler in front of the primary.",
                               valueName: "url"))
    var relays: [String] = []

    @Flag(help: "Print `ready` on standard error once the database is in step with the table.")
    var ready = false

    func run() async throws {
        let url = try PostgresPassword.resolve(for: PostgresURL(postgres), passwordFile: passwordFile,
                                               warn: { Console.err("prefs: warning: " + $0) })
        let relayURLs = try relays.map { try PostgresPassword.resolve(for: PostgresURL($0), passwordFile: passwordFile,
                                                                          warn: { Console.err("prefs: warning: " + $0) }) }
        let path = try storeOptions.path()
        let store = try DefaultsStore(path: path, configuration: StoreOptions.configuration)
        let logger = Logger(label: "prefs") { _ in ConsoleLogHandler() }

        // What retrying cannot cure ends the command now; an unreachable server is retried.
        let failure = await DefaultsPostgresSync.probe(url)
        if let failure, failure.code != .unreachable { throw failure }
        var configuration = url.configuration
        // A connection attempt into a partition waits for SYNs sent 1, 3 and 7 s apart: a short
        // attempt, soon tried again, reaches a server that came back within about a second
        // (PostgresNIO's default is 10 s). `connect_timeout=N` in the URL still decides.
        if URLComponents(string: postgres)?.queryItems?.contains(where: { $0.name == "connect_timeout" }) != true {
            configuration.options.connectTimeout = .seconds(2)
        }
        let client = PostgresClient(configuration: configuration)
        let follower = SyncFollower(path: path, client: client, url: url, relays: relayURLs, table: table, logger: logger,
                                    printsReady: ready)

        let work = Task {
            // The client ends only when cancelled; the follower when cancelled or when the
            // sync fails or the file cannot be followed. Either ends the command.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                group.addTask { try await follower.run(first: store, unreachable: failure) }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
        let trap = SignalTrap([SIGINT, SIGTERM]) { _ in work.cancel() }
        defer { withExtendedLifetime(trap) {} }
        do {
            try await work.value
        } catch is CancellationError {
            return
        }
    }
}
#endif
