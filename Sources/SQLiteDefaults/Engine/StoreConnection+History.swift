/// The history's part of the connection: pruning the log now and then after a commit.
extension StoreConnection {
    /// After an own commit that logged `sequences`: now and then deletes the log's entries
    /// older than the newest changes the file keeps. Every 1,000 own commits, and whenever a
    /// commit's entries pass a multiple of 1,000, so the file stays bounded however many
    /// processes share the writing (each of which may write only a few times).
    func notePrunableCommit(_ sequences: ClosedRange<Int64>) {
        commitsSincePrune += 1
        let crossed = (sequences.lowerBound - 1) / Self.pruneEvery != sequences.upperBound / Self.pruneEvery
        guard crossed || commitsSincePrune >= Self.pruneEvery else { return }
        commitsSincePrune = 0
        // Best effort, as its own commit: a failure here loses nothing, and the next one retries.
        try? HistoryLog.prune(keeping: HistoryLog.kept(database), database: database)
    }

    static let pruneEvery: Int64 = 1_000

    /// After other connections' commits were applied (on the monitor's thread, outside any
    /// transaction), or when a prune put off earlier is still due: prunes the log if it grew
    /// past the kept length plus its slack (``HistoryLog/pruneIfOverdue(_:)``). Writers that
    /// never prune — the `sqlite3` shell, Python — would otherwise grow it without bound
    /// while this store watches.
    ///
    /// Best effort: a failure loses nothing (the next commit seen tries again). When another
    /// connection held the write lock, ``prunePending`` asks the monitor's next look to try
    /// again even if nobody commits meanwhile.
    func pruneIfOverdue() {
        prunePending = (try? HistoryLog.pruneIfOverdue(database)) == .busy
    }
}

extension StoreConnection {
    /// Names `writer` (a replicator's: the fleet and the machine a row came from) as the writer
    /// of the statement just run for `key`: in the change log's entries it added, and for the
    /// observers when the transaction is published.
    func attributeLastWrite(of key: HashedKey, to writer: DefaultsWriter) throws {
        guard let sequences = recorder.lastStatementSequences else { return }
        try HistoryLog.stamp(sequences, writer: writer, database: database)
        replicaWriters[key] = writer
    }
}
