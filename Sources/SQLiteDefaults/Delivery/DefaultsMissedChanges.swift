/// Changes a sequence of changes left out because its consumer fell behind: carried by the
/// first change it delivers after them (``AnyDefaultsChange/missedBefore``,
/// ``DefaultsChange/missedBefore``).
///
/// ``DefaultsStore/changes()``, ``DefaultsStore/changes(prefix:)`` and
/// ``DefaultsStore/changes(_:)`` each hold at most ``DefaultsStore/changesBufferLimit`` changes
/// their consumer has not read; past that the oldest unread ones are dropped, so a consumer that
/// stops reading costs a bounded amount of memory, and when it reads again it is told what it
/// missed and goes on with the newest changes:
///
/// ```swift
/// for await change in store.changes(prefix: "feature.") {
///     if let missed = change.missedBefore {
///         // `missed.count` changes were left out: re-read the keys' current values, or read
///         // them from the history with `store.changes(since: missed.resumeAfter)` when known.
///         reloadFeatures()
///     }
///     apply(change)
/// }
/// ```
///
/// A consumer that must see every change, however far behind it falls, reads the history
/// instead: ``DefaultsStore/changes(since:keys:prefix:)`` buffers nothing in memory.
public struct DefaultsMissedChanges: Sendable, Hashable {
    /// How many changes were left out.
    public let count: Int
    /// The history sequence just before the first change left out: `store.changes(since:
    /// resumeAfter)` yields every change after it, the ones left out included (and may repeat
    /// changes from the same transactions that this sequence did deliver). `nil` when the
    /// history cannot name it: a change found by comparing every key (after a restore or a
    /// pruned log) has no history position, so re-read the keys' current values instead. A
    /// position older than what the history keeps makes the feed throw
    /// ``DefaultsError/Code/historyCompacted``: re-read the current values then too.
    public let resumeAfter: Int64?

    /// Creates a record of missed changes, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - count: how many changes were left out.
    ///   - resumeAfter: the history sequence just before the first of them, if known.
    public init(count: Int, resumeAfter: Int64?) {
        self.count = count
        self.resumeAfter = resumeAfter
    }
}
