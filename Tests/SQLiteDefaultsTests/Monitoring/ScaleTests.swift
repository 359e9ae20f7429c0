import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// DESIGN "One monitor per process": one inotify instance for every store of a process, so
/// the kernel's 128 instances per user never cap how many stores can open.
@Suite("Scale: one monitor per process", .offThePool, .slowTier, .requiresSQLiteShell)
struct ScaleTests {
    @Test("10,000 stores on distinct files open in one process with bounded threads and one inotify instance",
          .timeLimit(.minutes(10)),
          .disabled(if: monitorForcedToPoll, "SQLITEDEFAULTS_MONITOR=polling: counts inotify instances, and 10,000 polled stores would cost 100,000 looks a second"))
    func tenThousandStoresInOneProcess() async throws {
        let directory = try TemporaryDirectory()
        // Under the sanitizers (Scripts/sanitize.sh builds with SQLITEDEFAULTS_PTHREAD_MUTEX) every
        // open is many times slower: 400 stores there, still far past the 128 inotify instances.
        #if SQLITEDEFAULTS_PTHREAD_MUTEX
        let requested = 400
        #else
        let requested = 10_000
        #endif
        // A child process of its own: it raises its soft descriptor limit to the hard one (20,000
        // on the development machines: less than three descriptors for each of 10,000 stores),
        // and its counts are its own.
        let child = try RunningHelper(["open-many", directory.path + "/stores", "\(requested)", "shared"])
        let one = try #require(await child.value(after: "one ", timeout: .seconds(60)).map(counts),
                               "the first store did not open: \(child.errors)")
        let startedOpening = ContinuousClock.now
        let ready = await child.line(timeout: .seconds(540)) { $0 == "ready" }
        try #require(ready != nil, "the stores did not all open: \(child.lines.all.suffix(3)) \(child.errors)")
        let manyLine = try #require(await child.value(after: "many "))
        let many = counts(manyLine)
        let opened = Int(manyLine.split(separator: " ").first ?? "") ?? 0
        let path = try #require(await child.value(after: "path "))
        // Every store opens, whatever the descriptor limit (about three descriptors per open
        // connection; past the engine's connection budget idle stores give theirs back).
        #expect(opened == requested, "only \(opened) of \(requested) stores opened")

        // Bounded: the monitor's threads do not grow with the number of stores; one inotify instance.
        #expect(many.threads > 0 && many.threads <= one.threads + 4, "threads with 1 store: \(one.threads), with \(opened): \(many.threads)")
        #expect(one.inotify <= 1, "inotify instances with 1 store: \(one.inotify)")
        #expect(many.inotify <= 1, "inotify instances with \(opened) stores: \(many.inotify)")

        // An external write to the last store reaches its observer.
        try await sqlite3(path, "INSERT INTO defaults(key, value) VALUES ('shared', 'from the shell')")
        let heard = await child.value(after: "heard ", timeout: .seconds(30))
        #expect(heard == "from the shell", "the last of \(opened) stores did not hear the shell's write: \(child.errors)")
        // Closing 10,000 stores takes seconds on a quiet machine and minutes on a loaded one:
        // the deadline is for a child that hangs, not a measure of speed.
        #expect(await child.exitStatus(timeout: .seconds(300)) == 0)
        let seconds = Double(manyLine.split(separator: " ").dropFirst(2).first ?? "") ?? -1
        print("ScaleTests: \(opened) stores opened in \(seconds) s (whole run \(ContinuousClock.now - startedOpening)); one store: \(one), all: \(many); \(manyLine)")
    }

    struct Counts: CustomStringConvertible {
        var threads = -1, descriptors = -1, inotify = -1
        var description: String { "\(threads) threads, \(descriptors) descriptors, \(inotify) inotify instances" }
    }

    /// "… threads T fds F inotify I" as counts (-1 where missing).
    private func counts(_ line: String) -> Counts {
        let words = line.split(separator: " ").map(String.init)
        func number(after word: String) -> Int {
            guard let index = words.firstIndex(of: word), index + 1 < words.count else { return -1 }
            return Int(words[index + 1]) ?? -1
        }
        return Counts(threads: number(after: "threads"), descriptors: number(after: "fds"), inotify: number(after: "inotify"))
    }
}
