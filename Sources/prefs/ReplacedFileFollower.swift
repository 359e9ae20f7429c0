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
        case failure(DefaultsError)
    }

    /// The database file's path, as the command was given it.
    let path: String
    private let configuration: DefaultsStore.Configuration
    private let follows: @Sendable (String) -> Bool
    private var store: DefaultsStore
    private var pumps: [Task<Void, Never>] = []
    /// The last value seen of every followed key (a missing key: no row).
    private var known: [String: SQLiteValue] = [:]
    private let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    /// Opens the store at `path` (creating it when missing) and starts listening.
    /// - Parameter follows: whether a key's changes are wanted.
    /// - Throws: `DefaultsError` when the file cannot be opened or read.
    init(path: String, configuration: DefaultsStore.Configuration, follows: @escaping @Sendable (String) -> Bool) throws {
        self.path = path
        self.configuration = configuration
        self.follows = follows
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        self.continuation = continuation
        store = try StoreOptions.store(at: path, configuration: configuration)
        try attach()
    }

    /// Ends ``run(_:)`` (from any thread, a signal handler's queue included).
    var stop: @Sendable () -> Void {
        let continuation = self.continuation
        return { continuation.finish() }
    }

    /// Hands `handle` every committed change of a followed key, in order, with whether the
    /// key is declared secret now, until ``stop`` is called; after a replacement, first every
    /// key that differs in the new file.
    /// - Throws: what `handle` throws; ``PrefsError`` when the file was deleted or its
    ///   replacement cannot be opened.
    func run(_ handle: (AnyDefaultsChange, _ isSecret: Bool) throws -> Void) async throws {
        defer { detach() }
        for await event in events {
            switch event {
            case .change(let change):
                guard follows(change.key) else { continue }
                known[change.key] = change.newValue
                try handle(change, isSecret(change.key))
            case .failure(let error) where error.code == .databaseReplaced:
                for change in try reopen() { try handle(change, isSecret(change.key)) }
            case .failure:
                continue  // a failed write of this store: a follower writes nothing
            }
        }
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
            let old = known
            try attach()
            Console.err("prefs: \(ValueFormatting.escaped(path)) was replaced by another file; now following the new one")
            var changes: [AnyDefaultsChange] = []
            for key in Set(old.keys).union(known.keys).sorted() where !SQLiteValue.isSameStoredRow(old[key], known[key]) {
                changes.append(AnyDefaultsChange(key: key, newValue: known[key], origin: .external))
            }
            return changes
        } catch {
            throw PrefsError("\(path) was replaced by another file that cannot be opened: \(error)")
        }
    }

    /// Listens to the current store, then reads what it holds now.
    private func attach() throws {
        let changes = store.changes()
        let failures = store.reportedErrors()
        let continuation = self.continuation
        pumps = [
            Task { for await change in changes { continuation.yield(.change(change)) } },
            Task { for await failure in failures { continuation.yield(.failure(failure)) } },
        ]
        known = [:]
        for entry in try store.entries() where entry.value != .null && follows(entry.key) {
            known[entry.key] = entry.value
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
