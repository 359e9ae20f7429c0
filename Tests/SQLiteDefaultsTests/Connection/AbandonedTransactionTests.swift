import CSQLiteDefaults
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// When SQLite abandons a transaction because a
/// *read* inside it failed (an I/O, full-disk or memory error rolls the whole transaction
/// back), the rest of the body must fail too: a getter that swallowed the error would let the
/// next write run in autocommit and commit on its own.
///
/// The memory error is real: SQLite's hard heap limit makes reading a 4 MB row fail with
/// SQLITE_NOMEM, which rolls back the open transaction. The limit is process-wide, so the
/// scenario runs in an exit test (a child process of its own).
@Suite("Abandoned transactions", .offThePool)
struct AbandonedTransactionTests {
    @Test("a read that makes SQLite abandon the transaction fails the rest of it; nothing commits piecemeal")
    func abandonedByAFailedRead() async {
        await #expect(processExitsWith: .success) {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("abandoned-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/defaults.sqlite"
            let big = DefaultsKey<String>("big", default: "")
            let first = DefaultsKey<Int>("first", default: 0)
            let second = DefaultsKey<Int>("second", default: 0)
            do {
                let store = try DefaultsStore(path: path)
                try store.set(String(repeating: "x", count: 4_000_000), for: big)
                var readFailed = false
                var thrown: DefaultsError?
                do {
                    try store.transaction { tx in
                        tx[first] = 1
                        sqlite3_hard_heap_limit64(sqlite3_memory_used() + 500_000)
                        do {
                            _ = try tx.value(for: big)
                        } catch {
                            readFailed = true
                        }
                        _ = tx[big]  // the non-throwing getter swallows it, as before
                        sqlite3_hard_heap_limit64(0)
                        tx[second] = 2
                    }
                } catch let error as DefaultsError {
                    thrown = error
                }
                sqlite3_hard_heap_limit64(0)
                guard readFailed else {
                    print("the read did not fail: the heap limit had no effect")
                    exit(3)
                }
                guard thrown != nil else {
                    print("the transaction did not throw")
                    exit(4)
                }
                // A second store has no cache: it reads what was committed.
                let check = try DefaultsStore(path: path)
                guard !check.contains(first), !check.contains(second) else {
                    print("committed piecemeal: first=\(check[first]) second=\(check[second])")
                    exit(5)
                }
                // The store goes on working after the abandoned transaction.
                try store.set(3, for: second)
                guard try DefaultsStore(path: path).value(for: second) == 3 else { exit(6) }
            } catch {
                print("unexpected error: \(error)")
                exit(7)
            }
        }
    }
}
