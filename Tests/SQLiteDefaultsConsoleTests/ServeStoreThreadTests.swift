#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Synchronization
import Testing
import TestScheduling

/// How many of a test's requests have finished.
private final class Finished: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

@Suite("prefs serve: writes waiting for another process's lock freeze no read", .offThePool)
struct ServeStoreThreadTests {
    /// `../shared/repro/49`: another process holds the write lock; four PUTs wait behind it, and
    /// meanwhile `GET /api/keys`, which needs no lock in WAL mode, answers.
    @Test func aListingAnswersWhileWritesWaitForAnotherProcessesLock() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.database
        do {
            let store = try DefaultsStore(path: database)
            try await store.set(1, for: DefaultsKey<Int>("a", default: 0))
            try store.close()
        }
        let serve = try ServeProcess(database: database)
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let holder = try LockHolder(database)
        #expect(await holder.held())
        let heldSince = ContinuousClock.now
        let finished = Finished()
        let puts = (1...4).map { n in
            Task {
                let response = try await onOwnThread {
                    try RawHTTPConnection.request(port: port, "PUT", "/api/keys/k\(n)", headers: ["Content-Type": "application/json"],
                                                  body: Data(#"{"value": \#(n)}"#.utf8), timeout: .seconds(120))
                }
                finished.add()
                return response
            }
        }
        let listing = try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/keys") }
        #expect(listing.status == 200 && listing.text.contains(#""key":"a""#), "\(listing.text.prefix(200))")
        // Unless the listing came after the busy timeout (a loaded machine), no PUT has an answer.
        let answered = ContinuousClock.now - heldSince
        #expect(finished.value == 0 || answered > .seconds(8), "the writes still wait for the lock: the listing did not wait for them")
        #expect(await holder.release())
        let held = ContinuousClock.now - heldSince
        // Each PUT is written (200) or refused with the busy timeout's 503, which names the real
        // wait; nothing is lost either way. A hold well inside the timeout (10 s) refuses none;
        // on a loaded machine the hold itself (a sqlite3 process told to commit) once outlasted it
        // (CI, 2026-12-02), and then the refusals are the right answer.
        var written = 0
        for put in puts {
            let response = try await put.value
            if response.status == 200 {
                written += 1
            } else {
                #expect(held > .seconds(8) && response.status == 503 && response.text.contains("busy timeout"),
                        "held \(held): \(response.status) \(response.text.prefix(300))")
            }
        }
        let store = try DefaultsStore(path: database)
        #expect(try await store.keys().filter { $0.hasPrefix("k") }.count == written)
    }
}
#endif
