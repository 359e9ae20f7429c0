import Synchronization

/// A test hook: records every SQLite statement stepped inside a Swift task — on the
/// cooperative pool — while a test has it on, so tests prove that the package's async paths
/// (the console, Vapor's `req.defaults`, the fleet, the configuration provider) leave SQLite to
/// the store's own thread. Off, it costs one atomic load per statement.
///
/// A task-less thread (the store thread, a NIO event loop running a synchronous handler) is
/// not seen; the package's async paths run in tasks.
package enum StatementProbe {
    /// One statement stepped inside a task.
    package struct Record: Sendable, CustomStringConvertible {
        /// The database file the connection opened.
        package let path: String
        /// The statement's text (its first 120 characters).
        package let sql: String
        package var description: String { "\(sql) on \(path)" }
    }

    /// A recording in progress: ``start()`` returns it, ``stop(_:)`` ends it.
    package struct Mark: Sendable {
        fileprivate let first: Int
    }

    private struct State {
        var users = 0
        /// Numbered from `offset`: records before the earliest mark still in use are dropped.
        var offset = 0
        var records: [Record] = []
    }

    private static let isOn = Atomic<Int>(0)
    private static let state = Mutex(State())

    /// Starts recording (tests may record at once: each keeps what came after its own mark).
    package static func start() -> Mark {
        state.withLock { state in
            state.users += 1
            isOn.add(1, ordering: .relaxed)
            return Mark(first: state.offset + state.records.count)
        }
    }

    /// Ends the recording `mark` started and returns what it saw on files under `directory`.
    package static func stop(_ mark: Mark, under directory: String) -> [Record] {
        state.withLock { state in
            let seen = state.records[max(0, mark.first - state.offset)...].filter { $0.path.hasPrefix(directory) }
            state.users -= 1
            isOn.subtract(1, ordering: .relaxed)
            if state.users == 0 {
                state.offset += state.records.count
                state.records.removeAll()
            }
            return Array(seen)
        }
    }

    /// Called for every statement stepped: records it when a test listens and a task runs it.
    @inline(__always)
    static func stepping(_ sql: String, path: String) {
        guard isOn.load(ordering: .relaxed) > 0 else { return }
        let inTask = withUnsafeCurrentTask { $0 != nil }
        guard inTask else { return }
        let record = Record(path: path, sql: String(sql.prefix(120)))
        state.withLock { state in
            if state.users > 0 { state.records.append(record) }
        }
    }
}
