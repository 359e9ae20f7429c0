import Foundation

/// Waits out a busy file while a connection is being opened.
///
/// Processes that open one new file at once meet in ways SQLite's busy handler does not cover:
/// switching a new file to WAL needs an exclusive lock, and when two connections both read the
/// file and both want that lock, SQLite answers `SQLITE_BUSY` at once, without calling the busy
/// handler (it would deadlock). Each step of opening that may meet this is tried again here,
/// after the waits SQLite's busy handler uses, until the busy timeout — counted from the first
/// try — runs out; the error then says how long it really waited.
enum OpeningWait {
    /// The waits between tries, in milliseconds: SQLite's busy handler's own, then 100 ms each.
    static let delays: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// Runs `body` until it does not throw `.busy`, or the busy timeout has passed.
    /// - Throws: what `body` throws; `.busy` naming the real wait when the timeout ran out.
    static func retryingBusy<Result>(timeout: Duration, path: String, while operation: String,
                                     _ body: () throws -> Result) throws -> Result {
        let start = ContinuousClock.now
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as DefaultsError where error.code == .busy {
                let waited = ContinuousClock.now - start
                let remaining = timeout - waited
                if remaining <= .zero {
                    throw DefaultsError(
                        .busy,
                        "the database stayed locked by another connection for \(StoreThread.describe(waited)) (the busy timeout is \(StoreThread.describe(timeout))) while \(operation)",
                        path: path, sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
                }
                let delay = Duration.milliseconds(delays[min(attempt, delays.count - 1)])
                Thread.sleep(forTimeInterval: Self.seconds(min(delay, remaining)))
                attempt += 1
            }
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
