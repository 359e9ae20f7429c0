/// Why the monitor calls a watched file's handler: one half of the monitor's contract with the
/// engine (the other is ``MonitorOutcome``, what the handler answers).
enum MonitorEvent: Sendable, Equatable {
    /// One of the database's files was written (or a re-check after such a write).
    case filesChanged
    /// The database file itself was deleted, moved or created anew, or the directory went away.
    case databaseFileEvent
    /// Nothing reported the file for a whole safety-poll (or polling) interval.
    case safetyPoll
}

/// What a handler found, which decides when the monitor looks at that file next (see
/// ``MonitorScheduler/finished(_:outcome:now:)``).
enum MonitorOutcome: Sendable, Equatable {
    /// Another connection's commit was seen and handled.
    case sawCommit
    /// Nothing new: maybe a commit not yet published; look again shortly.
    case nothingNew
    /// Only this store's own commits since the last look: what woke the monitor was almost
    /// surely its own write, so no quick re-checks (they would contend with the writer); the
    /// slower ones still catch another writer's commit that was being written at the same time.
    case ownCommits
    /// The store was busy and could not look: look again in a millisecond.
    case busy
}
