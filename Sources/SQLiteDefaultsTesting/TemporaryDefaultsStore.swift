import Foundation
import SQLiteDefaults

/// A store on a file of its own, in a fresh temporary directory that is removed when the
/// store is closed with ``close()`` or released: for tests that need a real file (other
/// stores, other processes, the `sqlite3` shell) and must never touch the user's.
///
/// ```swift
/// let temporary = try TemporaryDefaultsStore()
/// temporary.store[.name] = "Ada"
/// let other = try temporary.openAnother()   // a second store on the same file
/// #expect(other[.name] == "Ada")
/// ```
///
/// Keep the `TemporaryDefaultsStore` alive as long as the test uses its file: releasing it
/// closes its store and deletes the directory, whatever other stores still have open.
public final class TemporaryDefaultsStore: Sendable {
    /// The store, open on ``path``.
    public let store: DefaultsStore
    /// The temporary directory that holds the file (created mode 0700, removed on close).
    public let directory: String
    /// The database file, `defaults.sqlite` in ``directory``.
    public var path: String { directory + "/defaults.sqlite" }

    /// Creates a fresh directory under the system's temporary directory and opens a store on
    /// a new file in it.
    ///
    /// ```swift
    /// var configuration = DefaultsStore.Configuration()
    /// configuration.externalChangeDetection = .off
    /// let temporary = try TemporaryDefaultsStore(configuration: configuration)
    /// ```
    ///
    /// - Parameter configuration: how the store opens and runs the database.
    /// - Throws: `CocoaError` when the directory cannot be created; the errors of
    ///   `DefaultsStore.init(path:configuration:)` when the store cannot open (the
    ///   directory is then removed again).
    public init(configuration: DefaultsStore.Configuration = DefaultsStore.Configuration()) throws {
        let base = FileManager.default.temporaryDirectory.path
        let directory = base + "/sqlite-defaults-testing-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        do {
            store = try DefaultsStore(path: directory + "/defaults.sqlite", configuration: configuration)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        self.directory = directory
    }

    /// Opens another store on the same file, as a second process (or a second part of the
    /// app) would: its changes reach ``store`` as `.external`, and the other way round.
    ///
    /// - Parameter configuration: how the second store opens and runs the database.
    /// - Returns: a new store on ``path``; close or release it before this object goes.
    /// - Throws: the errors of `DefaultsStore.init(path:configuration:)`.
    public func openAnother(configuration: DefaultsStore.Configuration = DefaultsStore.Configuration()) throws -> DefaultsStore {
        try DefaultsStore(path: path, configuration: configuration)
    }

    /// Closes ``store`` and removes ``directory`` with everything in it. Calling it again
    /// does nothing more.
    ///
    /// - Throws: the errors of `DefaultsStore.close()` (the directory is removed all the
    ///   same), or `CocoaError` when the directory cannot be removed.
    public func close() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try store.close()
        if FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.removeItem(atPath: directory)
        }
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension DefaultsStore {
    /// A store on a file in a fresh temporary directory, removed when the returned object is
    /// closed or released; see ``TemporaryDefaultsStore``.
    ///
    /// ```swift
    /// let temporary = try DefaultsStore.temporary()
    /// temporary.store[.name] = "Ada"
    /// ```
    ///
    /// - Parameter configuration: how the store opens and runs the database.
    /// - Returns: the temporary store; keep it alive while the test uses the file.
    /// - Throws: the errors of ``TemporaryDefaultsStore/init(configuration:)``.
    public static func temporary(configuration: Configuration = Configuration()) throws -> TemporaryDefaultsStore {
        try TemporaryDefaultsStore(configuration: configuration)
    }
}
