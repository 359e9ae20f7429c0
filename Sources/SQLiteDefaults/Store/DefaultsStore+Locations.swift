import Foundation
import Synchronization

extension DefaultsStore {
    /// The process's shared store for the application `name`, at
    /// `$XDG_CONFIG_HOME/<name>/defaults.sqlite`, or `~/.config/<name>/defaults.sqlite` when
    /// `XDG_CONFIG_HOME` is unset or not absolute.
    ///
    /// ```swift
    /// let store = try DefaultsStore.standard(name: "myapp")
    /// store[.launches] += 1
    /// try DefaultsStore.standard(name: "myapp") === store   // true: one store per path
    /// ```
    ///
    /// Like ``standard``, it is one store per process: the first call for a path opens it and
    /// every later call for the same path returns that same object, from any thread, so the
    /// parts of a server that name the same application share one connection, one cache and
    /// one file watch. The store stays open for the life of the process; one that was
    /// ``close()``d is replaced by a newly opened store on the next call. To open a store of
    /// your own (another connection to the same file, say), use
    /// `DefaultsStore(path: try DefaultsStore.standardPath(name:))`. ``standard`` is this store
    /// for ``standardName`` whenever that file can be opened.
    ///
    /// The configuration is used by the call that opens the file; a later call for the same
    /// path must ask for the same settings (its `logger` and `metricsFactory` are not compared)
    /// or it throws `.invalidConfiguration` rather than return a store that runs otherwise.
    ///
    /// - Parameters:
    ///   - name: the application's name; one path component (no `/`, not `.` or `..`).
    ///   - configuration: how the store opens and runs the database, when this call opens it.
    /// - Returns: the shared store for the path.
    /// - Throws: ``DefaultsError`` — `.invalidName`, `.invalidConfiguration` for settings that
    ///   differ from those the shared store was opened with, or the errors of
    ///   ``init(path:configuration:)`` when this call opens the file (nothing is cached then,
    ///   so the next call tries again).
    public static func standard(name: String, configuration: Configuration = Configuration()) throws -> DefaultsStore {
        try SharedStandardStores.store(at: standardPath(name: name), configuration: configuration)
    }

    /// Where ``standard(name:configuration:)`` keeps the database for `name`.
    /// - Throws: ``DefaultsError`` with code `.invalidName` for an empty name, one with `/`
    ///   or a NUL character, `.` or `..`.
    public static func standardPath(name: String) throws -> String {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw DefaultsError(.invalidName, "'\(name)' is not a valid application name: use one path component, without '/' or '..'")
        }
        return configDirectory() + "/" + name + "/defaults.sqlite"
    }

    static func configDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return xdg
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config"
    }
}

/// The stores ``DefaultsStore/standard(name:configuration:)`` shares, by path.
enum SharedStandardStores {
    private struct Entry {
        let store: DefaultsStore
        let configuration: DefaultsStore.Configuration
    }

    private static let stores = Mutex<[String: Entry]>([:])

    /// The open shared store at `path`, opened now if there is none (or it was closed).
    ///
    /// The lock is held while opening, so two threads asking for the same path at once get one
    /// store; opening calls no user code except a log handler.
    static func store(at path: String, configuration: DefaultsStore.Configuration) throws -> DefaultsStore {
        try stores.withLock { stores throws(DefaultsError) -> DefaultsStore in
            if let entry = stores[path], !entry.store.isClosed {
                guard entry.configuration.hasSameSettings(as: configuration) else {
                    throw DefaultsError(
                        .invalidConfiguration,
                        "the standard store at \(path) is already open with other settings; pass the same configuration, or open a store of your own with DefaultsStore(path:configuration:)",
                        path: path)
                }
                return entry.store
            }
            let store: DefaultsStore
            do {
                store = try DefaultsStore(path: path, configuration: configuration)
            } catch let error as DefaultsError {
                throw error
            } catch {
                throw DefaultsError(.cannotOpen, "the standard store at \(path) could not be opened: \(error)", path: path)
            }
            stores[path] = Entry(store: store, configuration: configuration)
            return store
        }
    }
}

extension DefaultsStore.Configuration {
    /// Whether `other` runs a store as this one does (`logger` and `metricsFactory` aside).
    func hasSameSettings(as other: Self) -> Bool {
        synchronous == other.synchronous && busyTimeout == other.busyTimeout
            && maximumValueLength == other.maximumValueLength
            && externalChangeDetection == other.externalChangeDetection
            && isReadOnly == other.isReadOnly && allowsOtherTables == other.allowsOtherTables
            && allowsUnsafePermissions == other.allowsUnsafePermissions
    }
}
