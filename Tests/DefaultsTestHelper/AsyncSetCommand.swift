import Foundation
import SQLiteDefaults
import Synchronization

//     DefaultsTestHelper async-set-timing DB N ROUNDS   N synchronous sets, then N async sets, ROUNDS times,
//                                                     interleaved; prints "sync NS async NS" (median
//                                                     nanoseconds per set) — a quick look at what the hop
//                                                     to the store's thread costs (Benchmarks/ has the row)
extension DefaultsTestHelper {
    /// Runs the command above; false when `arguments` names another.
    static func runAsyncSetCommand(_ arguments: [String]) throws -> Bool {
        guard arguments.first == "async-set-timing" else { return false }
        guard arguments.count == 4, let count = Int(arguments[2]), let rounds = Int(arguments[3]) else { throw usage() }
        let store = try DefaultsStore(path: arguments[1])
        let key = DefaultsKey<Int>("timing", default: 0)
        var value = 0
        var sync: [Double] = [], async: [Double] = []
        for _ in 0..<rounds {
            var start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<count {
                value += 1
                try store.set(value, for: key)
            }
            sync.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
            let first = value
            value += count
            let done = DispatchSemaphore(value: 0)
            let failure = FailureBox()
            start = DispatchTime.now().uptimeNanoseconds
            Task {
                do {
                    for next in (first + 1)...(first + count) { try await store.set(next, for: key) }
                } catch {
                    failure.message.withLock { $0 = "\(error)" }
                }
                done.signal()
            }
            done.wait()
            async.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
            if let failure = failure.message.withLock({ $0 }) { throw DefaultsError(.sqlite, failure) }
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        print("sync \(Int(median(sync))) async \(Int(median(async)))")
        return true
    }
}

/// The async loop's failure, read on the waiting thread.
private final class FailureBox: Sendable {
    let message = Mutex<String?>(nil)
}
