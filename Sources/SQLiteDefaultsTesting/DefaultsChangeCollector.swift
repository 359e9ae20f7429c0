import SQLiteDefaults
import SanitizerMutex

/// Collects what a store announces — every change of one key, of every key, or the elements
/// of any of its sequences — so that a test can wait for one and then assert on all of them.
///
/// ```swift
/// let temporary = try TemporaryDefaultsStore()
/// let other = try temporary.openAnother()
/// let collector = DefaultsChangeCollector(temporary.store, key: .name)
/// other[.name] = "Ada"
/// let change = try await collector.next()
/// #expect(change.newValue == "Ada" && change.origin == .external)
/// ```
///
/// Collecting starts when the collector is created and lasts until ``cancel()`` or until it
/// is released; the collector keeps the store it observes alive meanwhile. Changes are kept in
/// the order the store delivered them.
///
/// To show that a change was *not* announced, write a marker key after it (from the same
/// writer), wait for the marker with ``waitFor(timeout:_:fileID:line:where:)``, then look at
/// ``all``: the store delivers in commit order, so whatever came before the marker is there.
public final class DefaultsChangeCollector<Change: Sendable>: Sendable {
    private let buffer: Buffer
    /// Held so that the store observed lives as long as the collector does.
    private let store: DefaultsStore?
    private let observation: DefaultsObservation?
    private let consumer: Task<Void, Never>?

    /// Collects every committed change of every key of `store` (`DefaultsStore.observe(_:)`).
    ///
    /// ```swift
    /// let collector = DefaultsChangeCollector(store)
    /// ```
    ///
    /// - Parameter store: the store to hear.
    public init(_ store: DefaultsStore) where Change == AnyDefaultsChange {
        let buffer = Buffer()
        self.buffer = buffer
        self.store = store
        observation = store.observe { buffer.append($0) }
        consumer = nil
    }

    /// Collects every committed change of `key` in `store` (`DefaultsStore.observe(_:_:)`).
    ///
    /// ```swift
    /// let collector = DefaultsChangeCollector(store, key: .name)
    /// ```
    ///
    /// - Parameters:
    ///   - store: the store to hear.
    ///   - key: the key whose changes are collected.
    public init<Value>(_ store: DefaultsStore, key: DefaultsKey<Value>) where Change == DefaultsChange<Value> {
        let buffer = Buffer()
        self.buffer = buffer
        self.store = store
        observation = store.observe(key) { buffer.append($0) }
        consumer = nil
    }

    /// Collects the elements of `sequence` as they arrive: `store.changes()`,
    /// `store.changes(key)`, `store.updates(key)` or `store.reportedErrors()`.
    ///
    /// ```swift
    /// let values = DefaultsChangeCollector(store.updates(.name))
    /// let first = try await values.next()   // the current value
    /// ```
    ///
    /// - Parameter sequence: the sequence to consume; the collector is its one consumer.
    public init(_ sequence: AsyncStream<Change>) {
        let buffer = Buffer()
        self.buffer = buffer
        store = nil
        observation = nil
        consumer = Task {
            for await element in sequence { buffer.append(element) }
        }
    }

    deinit { cancel() }

    /// Everything collected so far, in delivery order.
    public var all: [Change] { buffer.state.withLock { $0.items } }

    /// How many changes were collected so far.
    public var count: Int { buffer.state.withLock { $0.items.count } }

    /// Stops collecting: the observation is cancelled, or the sequence's consumer ends (which
    /// unregisters it). What was collected stays readable.
    public func cancel() {
        observation?.cancel()
        consumer?.cancel()
    }

    /// The next change that no earlier call of `next` returned, waiting for it if needed.
    ///
    /// ```swift
    /// let collector = DefaultsChangeCollector(store, key: .name)
    /// store[.name] = "Ada"
    /// store[.name] = "Grace"
    /// #expect(try await collector.next().newValue == "Ada")
    /// #expect(try await collector.next().newValue == "Grace")
    /// ```
    ///
    /// A store announces each of its own commits; another store's or process's commits that
    /// arrive together may be announced as the key's latest value only.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait at most.
    ///   - fileID: the file of the call, for the error's description.
    ///   - line: the line of the call, for the error's description.
    /// - Returns: the change.
    /// - Throws: ``WaitTimedOut`` when nothing new arrived within `timeout`;
    ///   `CancellationError` when the waiting task is cancelled.
    public func next(timeout: Duration = .seconds(10), fileID: String = #fileID, line: Int = #line) async throws -> Change {
        var taken: Change?
        try await eventually(timeout: timeout, "a change after the \(buffer.state.withLock { $0.taken }) already taken",
                             fileID: fileID, line: line) {
            taken = buffer.state.withLock { state in
                guard state.taken < state.items.count else { return nil }
                state.taken += 1
                return state.items[state.taken - 1]
            }
            return taken != nil
        }
        guard let taken else {
            throw WaitTimedOut(what: "a change", timeout: timeout, fileID: fileID, line: line)
        }
        return taken
    }

    /// Waits until at least `count` changes were collected.
    ///
    /// - Parameters:
    ///   - count: how many changes to wait for, counted from the first collected.
    ///   - timeout: how long to wait at most.
    ///   - fileID: the file of the call, for the error's description.
    ///   - line: the line of the call, for the error's description.
    /// - Returns: everything collected by then (at least `count` changes).
    /// - Throws: ``WaitTimedOut`` (naming how many did arrive) when fewer than `count`
    ///   arrived within `timeout`; `CancellationError` when the waiting task is cancelled.
    @discardableResult
    public func waitFor(count: Int, timeout: Duration = .seconds(10), fileID: String = #fileID, line: Int = #line) async throws -> [Change] {
        try await eventually(timeout: timeout, "\(count) changes (\(self.count) arrived)", fileID: fileID, line: line) {
            self.count >= count
        }
        return all
    }

    /// Waits until a collected change satisfies `predicate`, and returns the first that does.
    ///
    /// ```swift
    /// let marker = try await collector.waitFor { $0.key == "marker" }
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: how long to wait at most.
    ///   - what: what the test waits for, for the error's description.
    ///   - fileID: the file of the call, for the error's description.
    ///   - line: the line of the call, for the error's description.
    ///   - predicate: which change to wait for.
    /// - Returns: the first collected change that satisfies `predicate`.
    /// - Throws: ``WaitTimedOut`` (listing what did arrive) when none did within `timeout`;
    ///   `CancellationError` when the waiting task is cancelled.
    @discardableResult
    public func waitFor(timeout: Duration = .seconds(10), _ what: String = "a matching change",
                        fileID: String = #fileID, line: Int = #line,
                        where predicate: (Change) -> Bool) async throws -> Change {
        var found: Change?
        do {
            try await eventually(timeout: timeout, what, fileID: fileID, line: line) {
                found = all.first(where: predicate)
                return found != nil
            }
        } catch let timedOut as WaitTimedOut {
            throw WaitTimedOut(what: "\(timedOut.what); collected: \(all)", timeout: timeout, fileID: fileID, line: line)
        }
        guard let found else {
            throw WaitTimedOut(what: what, timeout: timeout, fileID: fileID, line: line)
        }
        return found
    }

    /// The changes, behind a lock, shared with the handler or the sequence's consumer.
    private final class Buffer: Sendable {
        struct State {
            var items: [Change] = []
            var taken = 0
        }

        // A pthread lock, not `Synchronization.Mutex`: this is test support, off every hot
        // path, and ThreadSanitizer (ours in CI, or a user's) does not see the ordering a
        // contended `Mutex` gives on Linux and reported the collector's append and a waiter's
        // read as a race (see `PthreadMutex`).
        let state = PthreadMutex(State())

        func append(_ item: Change) { state.withLock { $0.items.append(item) } }
    }
}

/// A change that names its key and its new value: `DefaultsChange` and `AnyDefaultsChange`.
/// It lets ``DefaultsChangeCollector/waitFor(key:value:timeout:fileID:line:)`` wait for either.
public protocol KeyedDefaultsChange: Sendable {
    /// The type of the new value.
    associatedtype NewValue: Sendable
    /// The key that changed.
    var key: String { get }
    /// The key's value after the change.
    var newValue: NewValue { get }
}

extension DefaultsChange: KeyedDefaultsChange {}
extension AnyDefaultsChange: KeyedDefaultsChange {}

extension DefaultsChangeCollector where Change: KeyedDefaultsChange, Change.NewValue: Equatable {
    /// Waits until a change of `key` to `value` was collected, and returns it.
    ///
    /// ```swift
    /// let collector = DefaultsChangeCollector(store)
    /// other[.name] = "Ada"
    /// try await collector.waitFor(key: "name", value: .text("Ada"))
    /// ```
    ///
    /// - Parameters:
    ///   - key: the key's name.
    ///   - value: the new value to wait for (for `AnyDefaultsChange`, the stored
    ///     `SQLiteValue`, or `nil` for a removal).
    ///   - timeout: how long to wait at most.
    ///   - fileID: the file of the call, for the error's description.
    ///   - line: the line of the call, for the error's description.
    /// - Returns: the first collected change of `key` to `value`.
    /// - Throws: ``WaitTimedOut`` (listing what did arrive) when no such change arrived
    ///   within `timeout`; `CancellationError` when the waiting task is cancelled.
    @discardableResult
    public func waitFor(key: String, value: Change.NewValue, timeout: Duration = .seconds(10),
                        fileID: String = #fileID, line: Int = #line) async throws -> Change {
        try await waitFor(timeout: timeout, "\(key) = \(value)", fileID: fileID, line: line) {
            $0.key == key && $0.newValue == value
        }
    }
}
