#if Configuration
public import Configuration
public import SQLiteDefaults

/// A swift-configuration `ConfigProvider` that reads a `DefaultsStore`, and
/// pushes every committed change of a key to its watchers — whoever made it: this process,
/// another process, `prefs write`, or the `sqlite3` shell.
///
/// ```swift
/// import Configuration
/// import SQLiteDefaults
/// import SQLiteDefaultsConfiguration
///
/// let store = try DefaultsStore(path: "/var/lib/app/defaults.sqlite")
/// let config = ConfigReader(providers: [EnvironmentVariablesProvider(), DefaultsConfigProvider(store: store)])
/// let port = config.int(forKey: "http.port", default: 8080)
/// try await config.watchBool(forKey: "features.beta", default: false) { updates in
///     for await enabled in updates { print("beta:", enabled) }  // `prefs write features.beta 1 --type bool`
/// }
/// ```
///
/// **Keys.** A configuration key's components are joined by `"."` to name a row of the
/// `defaults` table: `"http.port"` (components `["http", "port"]`) reads the row whose key is
/// `http.port`. A key with no components, an empty component, or a component that itself holds
/// a `"."` names no row unambiguously and fails with `DefaultsError` code
/// `.invalidKey`. To keep an application's keys under a prefix, wrap the provider:
/// `DefaultsConfigProvider(store: store).prefixKeys(with: "myapp")`. The key's context is ignored.
///
/// **Values.** Each `ConfigType` reads the row the way the matching
/// `DefaultsKey` writes it:
///
/// | `ConfigType` | row in `defaults` |
/// | --- | --- |
/// | `.string` | TEXT |
/// | `.int` | INTEGER |
/// | `.double` | REAL, or INTEGER read as a `Double` |
/// | `.bool` | INTEGER 0 or 1 (as `DefaultsKey<Bool>` stores it) |
/// | `.bytes` | BLOB |
/// | `.stringArray`, `.intArray`, `.doubleArray`, `.boolArray`, `.byteChunkArray` | JSON TEXT, as `DefaultsKey<[String]>`, `<[Int]>`, `<[Double]>`, `<[Bool]>`, `<[Data]>` store them |
///
/// A missing row (or a row holding SQL NULL) is a `nil` value, so a `ConfigReader`
/// falls back to the next provider or the default. A row that cannot be read as the asked type
/// throws `DefaultsError` naming the key (`.typeMismatch` for the wrong storage
/// class, `.decodingFailed` for a JSON array or a 0/1 flag that does not decode); a
/// `ConfigReader` turns that into the default (`int(forKey:default:)`) or rethrows it
/// (`requiredInt(forKey:)`). A closed store throws `.closed`.
///
/// **Watching.** ``watchValue(forKey:type:updatesHandler:)`` yields the current value first,
/// then the new value after every committed change of that key — pushed by the store's
/// notifier, never polled; a change of another key wakes no watcher of this one. A watch ends
/// when its task is cancelled, its handler returns or throws, or the store is closed.
/// ``watchSnapshot(updatesHandler:)`` does the same for the whole table.
///
/// **Secrets.** Values of keys the file declares secret (`prefs declare KEY --secret`,
/// `DefaultsKey(…, secret: true)`) are always marked `isSecret`; so are values whose key the
/// `secrets` specifier names, so
/// swift-configuration's access reporters redact them.
public struct DefaultsConfigProvider: Sendable {
    /// The store this provider reads.
    public let store: DefaultsStore

    /// Which values are secret, by their row's key (the components joined by `"."`) and content.
    public let secrets: SecretsSpecifier<String, ConfigContent>

    private let name: String?

    /// Creates a provider over `store`.
    ///
    /// ```swift
    /// let provider = DefaultsConfigProvider(store: store, secrets: .specific(["db.password"]))
    /// ```
    ///
    /// - Parameters:
    ///   - store: the store to read and watch; the provider never writes and never closes it.
    ///   - name: an optional name shown in ``providerName`` (for logs and access reports).
    ///   - secrets: which values to mark secret; by default none.
    public init(store: DefaultsStore, name: String? = nil, secrets: SecretsSpecifier<String, ConfigContent> = .none) {
        self.store = store
        self.name = name
        self.secrets = secrets
    }
}

extension DefaultsConfigProvider: ConfigProvider {
    /// `DefaultsConfigProvider`, followed by the name given to the initializer in brackets, if any.
    public var providerName: String {
        name.map { "DefaultsConfigProvider[\($0)]" } ?? "DefaultsConfigProvider"
    }

    /// The key's current value, read through the store's cache (no I/O when the key was read
    /// before and nobody changed it since).
    ///
    /// - Returns: the row's value, or a `nil` value when the row is missing.
    /// - Throws: `DefaultsError` — `.invalidKey` for a key that names no row,
    ///   `.typeMismatch`/`.decodingFailed` (naming the key) for a row that cannot be read as
    ///   `type`, `.closed` after the store was closed, or the store's read errors.
    public func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let name = try RowKey.name(of: key)
        let row = try store.value(for: RowKey.rawKey(name))
        return LookupResult(encodedKey: name, value: try RowDecoding.namingDeclaration(of: name, in: store) {
            try RowDecoding.configValue(of: row, key: name, type: type, secrets: secrets,
                                        declaredSecret: try store.secretKeysByBytes().contains(HashedKey(name)))
        })
    }

    /// The key's value read from the database itself, bypassing the store's cache: a commit by
    /// another process (`prefs write`, the `sqlite3` shell) is seen as soon as it returned, even
    /// before the store's change monitor has announced it (typically well under a millisecond
    /// later). It reads the table in one read transaction, so prefer ``value(forKey:type:)``
    /// (served from the cache) on hot paths, and fetch where "the next request sees the write"
    /// must hold.
    ///
    /// - Throws: the errors of ``value(forKey:type:)``.
    public func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        let name = try RowKey.name(of: key)
        let (store, secrets) = (self.store, self.secrets)
        // On the store's thread: these are reads of the file, never made on the shared pool.
        return try await store.onStoreThread {
            // By bytes: SQLite tells "é" and "e\u{301}" apart, Swift's `==` does not.
            let row = try store.entries().first { $0.key.utf8.elementsEqual(name.utf8) }?.value
            return LookupResult(encodedKey: name, value: try RowDecoding.namingDeclaration(of: name, in: store) {
                try RowDecoding.configValue(of: row, key: name, type: type, secrets: secrets,
                                            declaredSecret: try store.secretKeysByBytes().contains(HashedKey(name)))
            })
        }
    }

    /// Calls `updatesHandler` with a sequence that yields the key's current value (or the error
    /// reading it) first, then its new value after every committed change of that key, from any
    /// writer. Consecutive identical rows are not repeated; a change to another key yields
    /// nothing.
    ///
    /// ```swift
    /// try await provider.watchValue(forKey: ["features", "beta"], type: .bool) { updates in
    ///     for await result in updates { print(try result.get().value as Any) }
    /// }
    /// ```
    ///
    /// The sequence finishes when the store is closed (at once for a store already closed, after
    /// yielding the `.closed` failure), and ends early when the calling task is cancelled. A key
    /// that names no row yields one `.invalidKey` failure and nothing more.
    ///
    /// - Returns: what `updatesHandler` returns.
    /// - Throws: whatever `updatesHandler` throws (the watch is unregistered first).
    public func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey,
        type: ConfigType,
        updatesHandler: (
            _ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>
        ) async throws -> Return
    ) async throws -> Return {
        let secrets = self.secrets
        let name: String
        do {
            name = try RowKey.name(of: key)
        } catch {
            // Nothing can ever change under a key that names no row: one failure, then quiet
            // until the store closes or the task is cancelled.
            let rows = store.updates(RowKey.rawKey(""), initial: false)
            let updates = RowUpdates(first: .failure(error), firstRow: nil, rows: rows) { _ in .failure(error) }
            return try await updatesHandler(ConfigUpdatesAsyncSequence(updates))
        }
        let store = self.store
        // Each lookup reads the declarations: on the store's thread, never on the shared pool.
        let lookup: @Sendable (SQLiteValue?) async -> Result<LookupResult, any Error> = { row in
            do {
                return try await store.onStoreThread {
                    Result {
                        LookupResult(encodedKey: name, value: try RowDecoding.namingDeclaration(of: name, in: store) {
                            try RowDecoding.configValue(of: row, key: name, type: type, secrets: secrets,
                                                        declaredSecret: try store.secretKeysByBytes().contains(HashedKey(name)))
                        })
                    }
                }
            } catch {
                return .failure(error)
            }
        }
        let rawKey = RowKey.rawKey(name)
        // Register first, then read: a change committed in between is seen by both, and the
        // duplicate is dropped; no change can fall between the two.
        // Registering reads the key's row when it is not cached: on the store's thread (here,
        // at once, only for a closed store, which reads nothing, or a cancelled task).
        let rows = (try? await store.onStoreThread { store.updates(rawKey, initial: false) }) ?? store.updates(rawKey, initial: false)
        let first: Result<LookupResult, any Error>
        let firstRow: SQLiteValue??
        do {
            let row = try store.value(for: rawKey)
            firstRow = .some(row)
            first = await lookup(row)
        } catch {
            firstRow = nil
            first = .failure(error)
        }
        let updates = RowUpdates(first: first, firstRow: firstRow, rows: rows, transform: lookup)
        return try await updatesHandler(ConfigUpdatesAsyncSequence(updates))
    }

    /// Every row of the table, read in one read transaction: the values a snapshot returns are
    /// consistent with each other.
    ///
    /// If the table cannot be read (a closed store, an I/O error), the snapshot throws that
    /// error, naming the key, from every lookup.
    public func snapshot() -> any ConfigSnapshot {
        DefaultsConfigSnapshot(store: store, providerName: providerName, secrets: secrets)
    }

    /// Calls `updatesHandler` with a sequence that yields a snapshot of the whole table first,
    /// then a new one after committed changes, from any writer. A burst of changes may arrive
    /// as one snapshot; consecutive identical snapshots are not repeated.
    ///
    /// The sequence finishes when the store is closed, and ends early when the calling task is
    /// cancelled.
    ///
    /// - Returns: what `updatesHandler` returns.
    /// - Throws: whatever `updatesHandler` throws (the watch is unregistered first).
    public func watchSnapshot<Return: ~Copyable>(
        updatesHandler: (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        // Register first, then read the first snapshot: no change can fall between the two.
        let (store, providerName, secrets) = (self.store, self.providerName, self.secrets)
        // Registering an observer of every key reads every row once: on the store's thread (here,
        // at once, only for a closed store, which reads nothing, or a cancelled task).
        let changes = (try? await store.onStoreThread { store.changes() }) ?? store.changes()
        // A snapshot reads the whole table: on the store's thread, never on the shared pool.
        // Nil when the task was cancelled; a closed store's snapshot carries the failure.
        let read: @Sendable () async -> DefaultsConfigSnapshot? = {
            do {
                return try await store.onStoreThread {
                    DefaultsConfigSnapshot(store: store, providerName: providerName, secrets: secrets)
                }
            } catch is CancellationError {
                return nil
            } catch {
                return DefaultsConfigSnapshot(store: store, providerName: providerName, secrets: secrets)
            }
        }
        guard let first = await read() else { throw CancellationError() }
        let updates = SnapshotUpdates(first: first, changes: changes, read: read)
        return try await updatesHandler(ConfigUpdatesAsyncSequence(updates))
    }
}
#endif
