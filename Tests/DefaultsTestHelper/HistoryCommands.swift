import Foundation
import SQLiteDefaults

//     DefaultsTestHelper hold-transaction DB KEY   writes KEY 1, 2, 3 in one transaction, prints "holding", waits
//     DefaultsTestHelper read-history DB N         reads the history N times, prints "read COUNT" each, then "done"
extension DefaultsTestHelper {
    /// Runs one of the history commands above; false when `arguments` names none of them.
    static func runHistoryCommand(_ arguments: [String]) throws -> Bool {
        guard let command = arguments.first else { return false }
        switch command {
        case "hold-transaction":
            // hold-transaction DB KEY: writes KEY = 1, 2, 3 inside one transaction, says
            // "holding", and waits there to be killed (history must record none of it).
            guard arguments.count == 3 else { throw usage() }
            let store = try DefaultsStore(path: arguments[1])
            let key = DefaultsKey<Int>(arguments[2], default: 0)
            let parent = getppid()
            try store.transaction { tx in
                for value in 1...3 { try tx.set(value, for: key) }
                edgeSay("holding")
                // Until killed, or until the test process is gone without killing it (a
                // sanitizer's halt_on_error, a crash): then it is reparented, and ends too, instead
                // of holding the file and a core for the rest of the CI run.
                while getppid() == parent { sleep(1) }
                exit(1)
            }
        case "read-history":
            // read-history DB N: reads the whole history N times; prints "read COUNT" per
            // read whose sequence numbers are strictly descending, "bad …" otherwise, then "done".
            guard arguments.count == 3, let count = Int(arguments[2]) else { throw usage() }
            let store = try DefaultsStore(path: arguments[1])
            for _ in 0..<count {
                let entries = try store.history(limit: 1_000_000)
                let ordered = zip(entries, entries.dropFirst()).allSatisfy { $0.sequence > $1.sequence }
                edgeSay(ordered ? "read \(entries.count)" : "bad order")
            }
            edgeSay("done")
        default:
            return false
        }
        return true
    }
}
