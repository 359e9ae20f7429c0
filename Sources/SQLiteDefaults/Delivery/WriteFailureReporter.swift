import Logging
import Synchronization

/// Where failures of non-throwing writes go: the log, ``DefaultsStore/lastReportedError``,
/// and every live ``DefaultsStore/reportedErrors()`` stream.
final class WriteFailureReporter: Sendable {
    private struct State {
        var last: DefaultsError?
        var subscribers: [UInt64: AsyncStream<DefaultsError>.Continuation] = [:]
        var nextID: UInt64 = 1
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// - Parameter warns: log at `.warning` (with `operation` in the message, a fixed phrase)
    ///   for a failure nobody asked about — the database file deleted under a running store, the
    ///   standard store unusable. A failed non-throwing write is logged at `.debug`: its caller
    ///   receives it on `reportedErrors()`, as swift-log asks of a library.
    func report(_ error: DefaultsError, operation: String, warns: Bool = false) {
        var metadata: Logger.Metadata = ["operation": "\(operation)", "code": "\(error.code)", "error": "\(error)"]
        if let key = error.key { metadata["key"] = "\(key)" }
        if warns {
            logger.warning("SQLiteDefaults: \(operation) failed", metadata: metadata)
        } else {
            logger.debug("SQLiteDefaults: a non-throwing write failed", metadata: metadata)
        }
        let subscribers = state.withLock { state in
            state.last = error
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(error) }
    }

    var last: DefaultsError? { state.withLock { $0.last } }

    /// How many unread errors one listener's stream holds at most.
    static let bufferLimit = 256

    func stream() -> AsyncStream<DefaultsError> {
        // Bounded: a listener that stops reading keeps the newest errors, which say what is
        // wrong now.
        let (stream, continuation) = AsyncStream.makeStream(of: DefaultsError.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
