#if Prefs && Fleet
import Foundation
import Logging
import PostgresNIO
import SQLiteDefaults
import SQLiteDefaultsPostgres

/// `prefs sync`'s loop: the fleet sync on the database at a path, following the path.
///
/// A store cannot follow a file moved over the one it opened (it reports `.databaseReplaced`
/// on `reportedErrors()` and refuses every later call), so a sidecar that kept that store would
/// run on, deaf, pushing nothing. Instead the store is closed, the file now at the path is
/// opened, and a new sync takes it as it is: its rows that differ from the table are pushed.
/// A file that cannot be opened, or a path left empty, ends the command with one line.
struct SyncFollower: Sendable {
    let path: String
    let client: PostgresClient
    /// The server's URL, for the sync to ask PostgreSQL itself why the client lends no connection.
    let url: PostgresURL
    /// The relays to listen on, in a relayed fleet; empty when the sync listens on `url`.
    let relays: [PostgresURL]
    let table: String
    let logger: Logger
    let printsReady: Bool

    /// Runs until cancelled (returns) or until the sync fails or the file cannot be followed
    /// (throws `DefaultsError` or ``PrefsError``).
    func run(first: DefaultsStore, unreachable: DefaultsError?) async throws {
        var store = first
        var adopting = false
        while true {
            let sync = DefaultsPostgresSync(store: store, client: client, relays: relays, table: table, logger: logger,
                                            adoptingLocalValues: adopting, serverURL: url)
            if !adopting, let unreachable { sync.reportUnreachable(unreachable) }
            guard try await runUntilReplaced(sync, printsReady: printsReady && !adopting) else { return }
            try? store.close()
            guard FileManager.default.fileExists(atPath: path) else {
                throw PrefsError("the database file \(path) was deleted while prefs sync had it open")
            }
            Console.err("prefs: the database file \(path) was replaced by another file; reopening it and pushing its differences")
            do {
                store = try reopen()
            } catch {
                let reason = (error as? DefaultsError)?.message ?? "\(error)"
                throw PrefsError("the database file \(path) was replaced, and the new file cannot be opened: \(reason)")
            }
            adopting = true
        }
    }

    /// Opens the file now at the path. SQLite never checkpoints a moved file, so the replaced
    /// file's `-wal` (written through the store this command had open) stays beside the new
    /// one; once that store is closed nobody holds it, and the library moves it aside (kept as
    /// `-wal.set-aside-<time>`, said on stderr) instead of replaying it into the new file. A
    /// log some other process still holds is live: the open is refused and the command ends.
    private func reopen() throws -> DefaultsStore {
        try StoreOptions.store(at: path, configuration: StoreOptions.configuration)
    }

    /// Runs `sync` until it ends (false: cancelled) or its store's file is replaced (true).
    private func runUntilReplaced(_ sync: DefaultsPostgresSync, printsReady: Bool) async throws -> Bool {
        // Subscribed before looking at the last failure, so a replacement between the two is
        // not missed.
        let failures = sync.store.reportedErrors()
        return try await withThrowingTaskGroup(of: Bool?.self) { group in
            group.addTask {
                do {
                    try await sync.run()
                    return false
                } catch let error as DefaultsError where error.code == .databaseReplaced {
                    return true  // the sync noticed first
                }
            }
            group.addTask {
                if sync.store.lastReportedError?.code == .databaseReplaced { return true }
                for await failure in failures where failure.code == .databaseReplaced { return true }
                return nil
            }
            if printsReady {
                group.addTask {
                    while !sync.isConnected { try await Task.sleep(for: .milliseconds(10)) }
                    Console.err("ready")
                    return nil
                }
            }
            defer { group.cancelAll() }
            while let ended = try await group.next() {
                if let replaced = ended { return replaced }
            }
            return false
        }
    }
}
#endif
