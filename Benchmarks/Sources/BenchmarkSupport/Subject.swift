import SQLiteDefaults

/// Who does the work in a workload: the library, or one of the references it is compared to.
public enum Subject: String, CaseIterable, Sendable {
    case defaults = "SQLiteDefaults"
    case raw = "raw SQLite"
    case dictionary = "Mutex<Dictionary>"
    case userDefaults = "UserDefaults"
    case userDefaultsSynchronized = "UserDefaults+synchronize"
}

/// A file store in a directory of its own (so its file watch sees no other fixture's
/// writes), with the default configuration unless told.
public final class StoreFixture: @unchecked Sendable {
    // Sendable proof: immutable after init; DefaultsStore is Sendable.
    // `store` is declared first so it closes before its directory is removed.
    public let store: DefaultsStore
    public let directory: TemporaryDirectory

    public init(_ label: String, configuration: DefaultsStore.Configuration = .init()) throws {
        let directory = try TemporaryDirectory(label)
        store = try DefaultsStore(path: directory.file("defaults.sqlite"), configuration: configuration)
        self.directory = directory
    }

    public var path: String { directory.file("defaults.sqlite") }
}
