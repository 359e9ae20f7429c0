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
}
