import Foundation
import Synchronization

extension DefaultsStore {
    /// The process's standard store: `standard(name:)` for the executable's name
    /// (``standardName``), at `$XDG_CONFIG_HOME/<name>/defaults.sqlite` or
    /// `~/.config/<name>/defaults.sqlite` — the store `@Default("key")` uses when no store is
    /// named, as `@AppStorage` uses `UserDefaults.standard`.
    ///
    /// ```swift
    /// DefaultsStore.standard[.launches] += 1
    /// @Default("username") var username = "Anonymous"   // reads and writes DefaultsStore.standard
    /// ```
    ///
    /// It is opened on first use, once per process, whichever thread gets there first, and it
    /// is the same object as ``standard(name:configuration:)`` returns for ``standardName``
    /// (with the default configuration): both give the one shared store of their path, kept
    /// for the life of the process (one that was ``close()``d is opened again on next use).
    /// Inside ``withStandard(_:_:)`` (and tasks created in its block) it is the store given
    /// there instead, and the process's own is not opened.
    ///
    /// Never throws and never crashes: when the file cannot be opened (`XDG_CONFIG_HOME` is a
    /// file, the directory is read-only, the file is not a database, …) an in-memory store
    /// stands in for the rest of the process. The failure is logged through swift-log and
    /// reported on that store as a ``DefaultsError`` with code
    /// ``DefaultsError/Code/cannotOpen`` whose message includes the underlying error. It is
    /// reported before anyone can see the stand-in, so a live ``reportedErrors()`` stream cannot
    /// have caught it: read ``lastReportedError`` (it stays set until a later failure replaces
    /// it), or check ``path`` (nil for the stand-in).
    ///
    /// ```swift
    /// if let failure = DefaultsStore.standard.lastReportedError, failure.code == .cannotOpen {
    ///     print("preferences will not be saved:", failure)
    /// }
    /// ```
    public static var standard: DefaultsStore {
        scopedStandard ?? processStandard
    }

    /// The application name ``standard`` uses: the file name of the executable as it was started
    /// (the last path component of `CommandLine.arguments[0]`, or the process name), made one
    /// valid path component: a NUL becomes `_`, surrounding white space is dropped, and an
    /// empty name, `.` or `..` becomes `"SQLiteDefaults"`.
    ///
    /// ```swift
    /// // started as /usr/local/bin/myserver
    /// DefaultsStore.standardName                                  // "myserver"
    /// try DefaultsStore.standardPath(name: DefaultsStore.standardName)  // ".../myserver/defaults.sqlite"
    /// ```
    public static var standardName: String {
        applicationName(from: CommandLine.arguments.first ?? ProcessInfo.processInfo.processName)
    }

    /// Runs `body` with `store` as ``standard``: in it, and in the tasks it creates (child
    /// tasks, `async let`, task groups, `Task { }`), ``standard`` and every `@Default`
    /// declared without a store — wherever it was declared — read and write `store`. Other
    /// tasks and threads, including tests running in parallel, keep their own standard store.
    /// Blocks nest; the innermost wins.
    ///
    /// ```swift
    /// @Test func countsLaunches() throws {
    ///     try DefaultsStore.withStandard(try .inMemory()) {
    ///         @Default("launches") var launches = 0
    ///         launches += 1
    ///         #expect(DefaultsStore.standard[DefaultsKey<Int>("launches", default: 0)] == 1)
    ///     }
    /// }
    /// ```
    ///
    /// It is a task-local value, as swift-sharing's `defaultAppStorage` is: a detached task, a
    /// `Thread`, a Dispatch queue and the observers' delivery thread do not inherit it.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws, unchanged.
    @discardableResult
    public static func withStandard<Result>(_ store: DefaultsStore, _ body: () throws -> Result) rethrows -> Result {
        try $scopedStandard.withValue(store, operation: body)
    }

    /// The `async` form of ``withStandard(_:_:)``: `body` and the tasks it creates see `store`
    /// as ``standard``.
    ///
    /// ```swift
    /// @Test func seesOwnValues() async throws {
    ///     try await DefaultsStore.withStandard(try .inMemory()) {
    ///         @Default("count") var count = 0
    ///         count = 1
    ///         for await value in $count.updates { #expect(value == 1); break }
    ///     }
    /// }
    /// ```
    ///
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws, unchanged.
    @discardableResult
    public static func withStandard<Result>(
        _ store: DefaultsStore,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await $scopedStandard.withValue(store, operation: body, isolation: isolation)
    }

    /// The store ``withStandard(_:_:)`` gives the current task, if any.
    @TaskLocal static var scopedStandard: DefaultsStore?

    /// The process's own standard store, opened (or stood in for) on first use.
    static var processStandard: DefaultsStore {
        // Held while opening, so the file is opened once even when threads race to be first.
        // Opening calls no user code except a log handler, should opening log; a log handler
        // that itself reads `DefaultsStore.standard` on first use would wait for itself, as it
        // would with any lazily initialised global.
        StandardSlot.store.withLock { slot in
            if let slot, !slot.isClosed { return slot }
            let opened = openStandard(name: standardName)
            slot = opened
            return opened
        }
    }

    /// The shared `standard(name:configuration:)`; when that fails, an in-memory store with the
    /// failure reported on it as `.cannotOpen`.
    static func openStandard(name: String, configuration: Configuration = Configuration()) -> DefaultsStore {
        let location: String
        do {
            location = try standardPath(name: name)
        } catch {
            return standIn(for: name, failure: error, configuration: configuration)
        }
        do {
            return try SharedStandardStores.store(at: location, configuration: configuration)
        } catch {
            return standIn(for: location, failure: error, configuration: configuration)
        }
    }

    /// Opens the standard store at `location`; when that fails, an in-memory store with the
    /// failure reported on it as `.cannotOpen`.
    static func openStandard(location: String, configuration: Configuration = Configuration()) -> DefaultsStore {
        do {
            return try DefaultsStore(path: location, configuration: configuration)
        } catch {
            return standIn(for: location, failure: error, configuration: configuration)
        }
    }

    /// An in-memory store, with the failure to open `location` logged and reported on it.
    private static func standIn(for location: String, failure error: any Error, configuration: Configuration) -> DefaultsStore {
        let underlying = error as? DefaultsError
        let failure = DefaultsError(
            .cannotOpen,
            "the standard store could not be opened at \(location): \(error); an in-memory store stands in, "
                + "so nothing written in this process will be kept",
            path: location, sqliteCode: underlying?.sqliteCode, sqliteMessage: underlying?.sqliteMessage)
        let standIn = inMemoryStandIn(configuration: configuration)
        standIn.core.failures.report(failure, operation: "opening the standard store", warns: true)
        return standIn
    }

    private static func inMemoryStandIn(configuration: Configuration) -> DefaultsStore {
        do {
            return try inMemory(configuration: configuration)
        } catch {
            do {
                return try inMemory()
            } catch {
                // An in-memory database needs nothing but memory: reaching this means SQLite
                // cannot allocate one, not anything a user or a file supplied.
                fatalError("SQLiteDefaults: SQLite cannot create an in-memory database for the standard store: \(error)")
            }
        }
    }

    /// `raw` (an `argv[0]` or process name) as one valid path component; see ``standardName``.
    static func applicationName(from raw: String) -> String {
        let lastComponent = raw.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        let cleaned = String(lastComponent.map { $0 == "\0" ? "_" : $0 })
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard !cleaned.isEmpty, cleaned != ".", cleaned != ".." else { return "SQLiteDefaults" }
        return cleaned
    }
}

/// The process's standard store once opened.
private enum StandardSlot {
    static let store = Mutex<DefaultsStore?>(nil)
}
