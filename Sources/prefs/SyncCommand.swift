#if !SQLITEDEFAULTS_WITHOUT_FLEET
import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

/// `prefs sync --postgres URL [--table NAME]`: the fleet sync as a sidecar.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep the database in step with other machines through a PostgreSQL table, until interrupted.",
        discussion: """
            Pushes every committed change of the database (from any writer) to the PostgreSQL \
            table, and applies the other machines' changes as they are notified (LISTEN/NOTIFY). \
            The table is created when missing. While PostgreSQL cannot be reached, local reads and \
            writes go on; changes are pushed when it returns. One line is printed on standard \
            error per change of state (connected, unreachable and why), not per retry. A bad URL, \
            rejected credentials, a missing database or a table of another shape end it with one \
            line and exit status 1; SIGINT or SIGTERM end it with 0.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("postgres"),
            help: ArgumentHelp("The server: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require].", valueName: "url"))
    var postgres: String

    @Option(help: ArgumentHelp("The PostgreSQL table shared by the fleet, TABLE or SCHEMA.TABLE.", valueName: "name"))
    var table = "defaults_fleet"

    @Flag(help: "Print `ready` on standard error once the database is in step with the table.")
    var ready = false

    func run() async throws {
        let url = try PostgresURL(postgres)
        let path = try storeOptions.path()
        let store = try DefaultsStore(path: path, configuration: StoreOptions.configuration)
        let logger = Logger(label: "prefs") { _ in ConsoleLogHandler() }

        // What retrying cannot cure ends the command now; an unreachable server is retried.
        let failure = await DefaultsPostgresSync.probe(url)
        if let failure, failure.code != .unreachable { throw failure }
        let client = PostgresClient(configuration: url.configuration)
        let sync = DefaultsPostgresSync(store: store, client: client, table: table, logger: logger)
        if let failure { sync.reportUnreachable(failure) }
        let ready = self.ready

        let work = Task {
            // Each child says whether its end ends the command: the client and the sync end
            // only when cancelled or when the sync fails; the `ready` printer just finishes.
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await client.run()
                    return true
                }
                group.addTask {
                    try await sync.run()
                    return true
                }
                if ready {
                    group.addTask {
                        while !sync.isConnected { try await Task.sleep(for: .milliseconds(10)) }
                        Console.err("ready")
                        return false
                    }
                }
                defer { group.cancelAll() }
                while let ends = try await group.next(), !ends {}
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
