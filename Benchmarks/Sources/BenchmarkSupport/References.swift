import Foundation
import Synchronization

/// The floor for a cached read: a `Dictionary` behind a `Synchronization.Mutex`.
public final class LockedDictionary<Value: Sendable>: Sendable {
    private let storage: Mutex<[String: Value]>

    public init(_ initial: [String: Value] = [:]) {
        storage = Mutex(initial)
    }

    @inline(__always)
    public subscript(key: String) -> Value? {
        get { storage.withLock { $0[key] } }
    }

    public func set(_ value: Value, for key: String) {
        storage.withLock { $0[key] = value }
    }
}

/// Foundation's `UserDefaults` on a suite of its own, removed when this object goes away.
public final class UserDefaultsReference: @unchecked Sendable {
    // Sendable proof: UserDefaults is documented thread-safe; `suite` is immutable.
    public let defaults: UserDefaults
    public let suite: String

    public init() throws {
        suite = "sqlitedefaults-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard let defaults = UserDefaults(suiteName: suite) else {
            throw BenchmarkFailure("UserDefaults(suiteName:) returned nil")
        }
        self.defaults = defaults
    }

    deinit {
        defaults.removePersistentDomain(forName: suite)
        defaults.synchronize()
    }
}
