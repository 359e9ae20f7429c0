#if Observable
import DefaultsTestSupport
import Foundation
import SQLiteDefaultsObservable
import Synchronization
import Testing

/// Runs `body` with a fresh directory under the system's temporary directory, and removes
/// the directory once `body` has returned and released the stores it opened there. The body
/// awaits what it waits for (a change, the sqlite3 shell): it must not hold a pool thread.
func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) async throws -> Result) async throws -> Result {
    let directory = try TemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory.path) }
    return try await body(directory)
}

/// A fresh directory for one test's databases (see ``withTemporaryDirectory(_:)``); it
/// shadows the shared support's, which removes itself on deinit — possibly before the
/// stores of a test are gone.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/observable-defaults-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    var database: String { path + "/d.sqlite" }

    /// A new store on this directory's database file.
    func store() throws -> DefaultsStore {
        try DefaultsStore(path: database)
    }
}

/// Counts the `onChange` calls of `withObservationTracking`, which arrive on whichever thread
/// made the change; `waitAsync` polls (suspended in between) until one arrived or a deadline passed.
final class ChangeFlag: Sendable {
    private let count = Mutex(0)

    func fire() { count.withLock { $0 += 1 } }
    var fired: Bool { count.withLock { $0 > 0 } }
    var fireCount: Int { count.withLock { $0 } }

    /// Waits, without holding a thread of the cooperative pool, until the flag fired; returns
    /// whether it did within `timeout`.
    func waitAsync(timeout: Duration = .seconds(60)) async -> Bool {
        await waitUntil(timeout: timeout) { fired }
    }
}

/// Counts every announced change of what `read` reads from `object`, re-registering
/// `withObservationTracking` after each one as a long-lived observer does.
///
/// `@unchecked Sendable`: the object is held weakly and only read, by `read`, from the
/// thread that announces a change; the tests read only store-backed properties that way,
/// and those read the `Sendable` store.
final class ChangeCounter<Object: AnyObject>: @unchecked Sendable {
    private let changes = Mutex(0)
    private weak var object: Object?
    private let read: (Object) -> Void

    init(_ object: Object, _ read: @escaping (Object) -> Void) {
        self.object = object
        self.read = read
        register()
    }

    private func register() {
        guard let object else { return }
        withObservationTracking { read(object) } onChange: { [self] in
            changes.withLock { $0 += 1 }
            register()
        }
    }

    var count: Int { changes.withLock { $0 } }

    /// Waits, without holding a thread of the cooperative pool, until at least `count` changes
    /// were announced; returns whether they were.
    func waitAsync(count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        await waitUntil(timeout: timeout) { self.count >= count }
    }
}

/// Tracks what `read` reads; the returned flag fires on the first change of any of it.
func track(_ read: () -> Void) -> ChangeFlag {
    let flag = ChangeFlag()
    withObservationTracking(read, onChange: { flag.fire() })
    return flag
}

/// The keys stored in `database`, as any SQLite client sees them.
func storedKeys(_ database: String) async throws -> [String] {
    try await sqlite3(database, "SELECT key FROM defaults ORDER BY key;").split(separator: "\n").map(String.init)
}

/// `INSERT … ON CONFLICT DO UPDATE` of a text value, as a user would type it.
func sqlite3Upsert(_ database: String, key: String, text: String) async throws {
    try await sqlite3(database, "INSERT INTO defaults(key, value) VALUES('\(key)', '\(text)') ON CONFLICT(key) DO UPDATE SET value = excluded.value;")
}
#endif
