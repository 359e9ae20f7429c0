#if Prefs && Fleet
import ArgumentParser
import Foundation
import Logging
import SQLiteDefaultsPostgres

/// `prefs relay --primary URL --relay URL…`: sets up the relays of a large fleet.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Set up relays for a large fleet: the primary publishes the table, each relay subscribes to it.",
        discussion: """
            On the primary (which must run with wal_level = logical): creates the fleet's table \\
            when missing and a publication of it. On each relay: a copy of the table, a trigger \\
            that notifies the relay's listeners of every push it receives, and a subscription to \\
            the primary (PostgreSQL 15 lets only superusers create one). Machines then run \\
            `prefs sync --postgres POOLER --relay RELAY…`. Running it again keeps what exists. \\
            Prints the publication and each subscription. The relays reach the primary with \\
            --primary-conninfo, by default the primary URL's host, port, database and user \\
            (and its password, which PostgreSQL keeps readable by superusers only).
            """
    )

    @Option(help: ArgumentHelp("The primary: postgres://USER@HOST[:PORT]/DATABASE.", valueName: "url"))
    var primary: String

    @Option(name: .customLong("relay"), help: ArgumentHelp("A relay (repeatable): postgres://SUPERUSER@HOST[:PORT]/DATABASE.", valueName: "url"))
    var relays: [String] = []

    @Option(name: .customLong("password-file"),
            help: ArgumentHelp("A file (mode 0600) whose first line is the PostgreSQL password.", valueName: "file"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("The PostgreSQL table shared by the fleet, TABLE or SCHEMA.TABLE.", valueName: "name"))
    var table = "defaults_fleet"

    @Option(name: .customLong("primary-conninfo"),
            help: ArgumentHelp("How the relays reach the primary, in libpq's form (host=… dbname=… user=…).", valueName: "conninfo"))
    var primaryConnectionInfo: String?

    func validate() throws {
        if relays.isEmpty { throw ValidationError("name at least one relay with --relay") }
    }

    func run() async throws {
        let warn: (String) -> Void = { Console.err("prefs: warning: " + $0) }
        let primaryURL = try PostgresPassword.resolve(for: PostgresURL(primary), passwordFile: passwordFile, warn: warn)
        let relayURLs = try relays.map { try PostgresPassword.resolve(for: PostgresURL($0), passwordFile: passwordFile, warn: warn) }
        let logger = Logger(label: "prefs") { _ in SwiftLogNoOpLogHandler() }
        let done = try await DefaultsFleetRelay.setUp(table: table, primary: primaryURL, relays: relayURLs,
                                                      primaryConnectionInfo: primaryConnectionInfo, logger: logger)
        print("publication \(done.publication)")
        for (relay, subscription) in zip(relayURLs, done.subscriptions) {
            print("relay \(relay): subscription \(subscription)")
        }
    }
}
#endif
