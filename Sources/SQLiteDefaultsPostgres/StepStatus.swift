#if Fleet
import SQLiteDefaults
import Synchronization

/// Whether the sync is in step with the fleet's table, and whether a line said so.
///
/// Each change of state is said once, never once per retry: a failure is one state per kind
/// (unreachable, rejected), whatever its message says. A spell out of step that began without
/// a failure to say (the sync starting, a table joined again, a connection the client's pool
/// does not lend) is *unsaid* until the sync says something about it: the watch
/// (``DefaultsPostgresSync``'s `watchStep`) speaks for it when it lasts.
final class StepStatus: Sendable {
    enum State: Equatable {
        case starting
        case connected
        case failing(DefaultsError.Code)
    }

    private struct Book {
        var state = State.starting
        /// When the current spell out of step began.
        var since = ContinuousClock.now
        /// Whether a line said that this spell is out of step.
        var said = false
        /// Whether a session holds a connection from the client now.
        var holdsConnection = false
    }

    private let book = Mutex(Book())

    /// Records a new state; true when it differs from the last one (the caller then says so).
    func enter(_ new: State) -> Bool {
        book.withLock { book in
            guard book.state != new else { return false }
            switch new {
            case .connected:
                break
            case .starting:
                book.since = .now
                book.said = false
            case .failing:
                if book.state == .connected { book.since = .now }
                book.said = true
            }
            book.state = new
            return true
        }
    }

    /// The state last entered.
    var state: State { book.withLock { $0.state } }

    /// Whether the sync is connected and in step.
    var isConnected: Bool { book.withLock { $0.state == .connected } }

    /// Whether the sync has been out of step for `limit` or longer with no line saying so.
    func isUnsaid(for limit: Duration) -> Bool {
        book.withLock { $0.state != .connected && !$0.said && ContinuousClock.now - $0.since >= limit }
    }

    /// A line said that this spell is out of step, without a change of state.
    func markSaid() {
        book.withLock { $0.said = true }
    }

    /// Whether a session holds a connection from the client now.
    var holdsConnection: Bool {
        get { book.withLock { $0.holdsConnection } }
        set { book.withLock { $0.holdsConnection = newValue } }
    }
}
#endif
