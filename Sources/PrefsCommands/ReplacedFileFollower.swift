#if Prefs
import Foundation
import PrefsFormats
import SQLiteDefaults

/// A store kept open at one path for as long as a command runs, following the file when
/// another one is put in its place (`mv other.sqlite db.sqlite`).
///
/// The library cannot follow a replaced file by itself (it refuses every call with
/// `.databaseReplaced` and reports that on `reportedErrors()`), so a long-running command that
/// only listened to `changes()` would go deaf. This hears both: on a replacement it closes
/// the old store, opens the new file at the same path, and hands over, as changes, every
/// followed key whose value differs between what it last saw and the new file.
final class ReplacedFileFollower {
    /// What the follower hears from its current store.
    private enum Event: Sendable {
        case change(AnyDefaultsChange)
        case entry(DefaultsHistoryEntry<SQLiteValue>)
        case failure(DefaultsError)
        /// The change feed ended with this error (compacted history, a rewound file, …).
        case feedFailure(DefaultsError)
    }

    /// Where a followed change feed starts.
    enum FeedStart {
        /// After the newest change the history holds when the file is opened.
        case newest
        /// After this history sequence.
        case after(Int64)
    }

    /// What ``run(_:)`` hands over: a change from the history's feed, or, after the file was
    /// replaced, a key whose value differs in the new file (no history entry says so).
    enum Delivered {
        case entry(DefaultsHistoryEntry<SQLiteValue>)
        case change(AnyDefaultsChange, isSecret: Bool)
    }

    /// The database file's path, as the command was given it.
    let path: String
    private let configuration: DefaultsStore.Configuration
    private let follows: @Sendable (String) -> Bool
    /// With a position, changes come from the history's feed, every one after it, never
    /// coalesced; without, from the store's observers (the newest value).
    private var position: Int64?
    /// Whether the feed follows "from now on" (no position was asked for): a burst the history
    /// could not keep is then announced and skipped, never the end (see ``run(_:)``).
    private let isLive: Bool
    private var store: DefaultsStore
    private var pumps: [Task<Void, Never>] = []
    /// The last value seen of every followed key (a missing key: no row). By bytes: two
    /// canonically equivalent names (NFC and NFD "café") are two rows.
    private var known: [HashedKey: SQLiteValue] = [:]
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    /// Opens the store at `path` (creating it when missing) and starts listening.
    /// - Parameter follows: whether a key's changes are wanted.
    /// - Throws: `DefaultsError` when the file cannot be opened or read.
    /// - Parameter feed: follow the history's change feed (every change, never coalesced) from
    ///   this position, or from the newest change when it is `.newest`; nil follows the store's
    ///   observers.
    init(path: String, configuration: DefaultsStore.Configuration, feed: FeedStart? = nil,
         follows: @escaping @Sendable (String) -> Bool) throws {
        self.path = path
        self.configuration = configuration
        self.follows = follows
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        self.continuation = continuation
        store = try StoreOptions.store(at: path, configuration: configuration)
        isLive = if case .newest? = feed { true } else { false }
        switch feed {
        case .newest?: position = try store.newestSequence()
        case .after(let sequence)?: position = sequence
        case nil: position = nil
        }
        try attach()
    }

    /// Ends ``run(_:)`` (from any thread, a signal handler's queue included).
    var stop: @Sendable () -> Void {
        let continuation = self.continuation
        return { continuation.finish() }
    }

    /// Hands `handle` every committed change of a followed key, in order, until ``stop`` is
    /// called; after a replacement, first every key that differs in the new file (with whether
    /// it is declared secret now).
    /// - Throws: what `handle` throws; ``PrefsError`` when the file was deleted or its
    ///   replacement cannot be opened, or the feed ended (the history was compacted past the
    ///   position, or the file went back to an older state).
    func run(_ handle: (Delivered) throws -> Void) async throws {
        defer { detach() }
        for await event in events {
            switch event {
            case .change(let change):
                guard follows(change.key) else { continue }
                known[HashedKey(change.key)] = change.newValue
                try handle(.change(change, isSecret: isSecret(change.key)))
            case .entry(let entry):
                position = entry.sequence
                guard follows(entry.key) else { continue }
                switch entry.value {
                case .value(let stored), .undecodable(let stored): known[HashedKey(entry.key)] = stored
                case .removed: known[HashedKey(entry.key)] = nil
                case .secret, .tooLargeToKeep:
                    known[HashedKey(entry.key)] = try? store.value(for: DefaultsKey<SQLiteValue?>(entry.key))
                }
                try handle(.entry(entry))
            case .failure(let error) where error.code == .databaseReplaced:
                for change in try reopen() { try handle(.change(change, isSecret: isSecret(change.key))) }
            case .feedFailure(let error) where error.code == .databaseReplaced || error.code == .closed:
                continue  // the store's own report of the replacement (above) reopens it
            case .failure:
                continue  // a failed write of this store: a follower writes nothing
            case .feedFailure(let error) where isLive && (error.code == .historyCompacted || error.code == .historyRewound):
                // A tail follows the present: one transaction committed more changes than the
                // history keeps (a 20,000-key import), or the file went back under it. Say what
                // could not be shown, and go on from the newest change (as etcd tells a
                // watcher to re-list).
                try resumeFromNewest(after: error)
            case .feedFailure(let error) where error.code == .historyCompacted:
                let oldest = error.oldestKeptSequence.map { " is \($0)" } ?? " is later"
                throw PrefsError("the history was compacted: the changes after \(position ?? 0) are no longer kept (the oldest change kept\(oldest)); start again with --since \(max((error.oldestKeptSequence ?? 1) - 1, 0))")
            case .feedFailure(let error) where error.code == .historyRewound:
                let newest = await (try? store.newestSequence()).map { " (\($0))" } ?? ""
                let oldest = error.oldestKeptSequence.map {
                    "the oldest change kept is \($0); start again with --since \($0 - 1)"
                } ?? "it keeps no change; start again with --since 0"
                throw PrefsError("the history has no change \(position ?? 0): its newest change\(newest) is older (a sequence in the future, of another file, or the file went back to an older state); \(oldest)")
            case .feedFailure(let error):
                throw PrefsError("reading the history failed: \(error.message)")
            }
        }
    }

    /// A live feed's changes after ``position`` are gone (pruned before it read them, or the
    /// file went back to an older state): says so on standard error, with what to do for the
    /// values the burst left, and follows again from the newest change.
    private func resumeFromNewest(after error: DefaultsError) throws {
        detach()
        let missedAfter = position ?? 0
        let newest: Int64
        do {
            newest = try store.newestSequence()
        } catch {
            throw PrefsError("reading the history failed: \(error)")
        }
        position = newest
        try attach()
        let why = error.code == .historyCompacted
            ? "more changes were committed at once than the history keeps (\((try? store.historyRetention).map(String.init) ?? "its length"))"
            : "the file went back to an older state (a backup restored under it)"
        Console.err("prefs: the changes after \(missedAfter) cannot be shown one by one: \(why); read the current values with `prefs list` or `prefs export`; going on after change \(newest)")
    }

    /// Whether `key` is declared secret in the file now; when the declarations cannot be read,
    /// true, so that a value is masked rather than shown by mistake.
    private func isSecret(_ key: String) -> Bool {
        do { return try store.declaration(for: key)?.isSecret ?? false } catch { return true }
    }

    /// Opens the file now at ``path`` in place of the replaced one.
    private func reopen() throws(PrefsError) -> [AnyDefaultsChange] {
        detach()
        try? store.close()  // refused calls only: the old file is gone from the path
        guard FileManager.default.fileExists(atPath: path) else {
            throw PrefsError("\(path) was deleted while in use; stopped")
        }
        do {
            store = try StoreOptions.store(at: path, configuration: configuration)
            // The new file's history is another file's: its feed starts at its newest change.
            if position != nil { position = try store.newestSequence() }
            let old = known
            try attach()
            Console.err("prefs: \(ValueFormatting.escaped(path)) was replaced by another file; now following the new one")
            var changes: [AnyDefaultsChange] = []
            let keys = Set(old.keys).union(known.keys).sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
            for key in keys where !SQLiteValue.isSameStoredRow(old[key], known[key]) {
                changes.append(AnyDefaultsChange(key: key.name, newValue: known[key], origin: .external))
            }
            return changes
        } catch {
            throw PrefsError("\(path) was replaced by another file that cannot be opened: \(error)")
        }
    }

    /// Listens to the current store, then reads what it holds now.
    private func attach() throws {
        let failures = store.reportedErrors()
        let continuation = self.continuation
        pumps = [Task { for await failure in failures { continuation.yield(.failure(failure)) } }]
        if let position {
            let feed = store.changes(since: position)
            pumps.append(Task {
                do {
                    for try await entry in feed { continuation.yield(.entry(entry)) }
                } catch let error as DefaultsError {
                    continuation.yield(.feedFailure(error))
                } catch {
                    continuation.yield(.feedFailure(DefaultsError(.sqlite, "\(error)")))
                }
            })
        } else {
            let changes = store.changes()
            pumps.append(Task { for await change in changes { continuation.yield(.change(change)) } })
        }
        known = [:]
        for entry in try store.entries() where entry.value != .null && follows(entry.key) {
            known[HashedKey(entry.key)] = entry.value
        }
    }

    private func detach() {
        for pump in pumps { pump.cancel() }
        pumps = []
    }
}

extension SQLiteValue {
    /// Whether two rows (`nil`: none) hold the same value: same class, same bits (`-0.0` is
    /// not `0.0`), as the library tells changes apart.
    static func isSameStoredRow(_ a: SQLiteValue?, _ b: SQLiteValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (.real(x)?, .real(y)?): x.bitPattern == y.bitPattern
        case let (a?, b?): a == b
        default: false
        }
    }
}
#endif
