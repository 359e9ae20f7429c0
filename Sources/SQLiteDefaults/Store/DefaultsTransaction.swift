/// The view of the store inside ``DefaultsStore/transaction(_:)-8rx6d``: the same reads and writes,
/// all committed together when the closure returns, or none of them.
///
/// Valid only inside the closure; using it afterwards throws (or, for the subscript setter,
/// reports a failure).
public final class DefaultsTransaction {
    let core: StoreEngine
    private var isOpen = true
    private(set) var firstFailure: (any Error)?

    init(core: StoreEngine) {
        self.core = core
    }

    func end() { isOpen = false }

    func checkOpen() throws {
        guard isOpen else {
            throw DefaultsError(.misuse, "a DefaultsTransaction was used after its transaction ended")
        }
    }

    /// Reads like ``DefaultsStore/subscript(_:)``; setting records the first failure, which
    /// then rolls the whole transaction back and is thrown by `transaction`.
    public subscript<Value>(key: DefaultsKey<Value>) -> Value {
        get { (try? value(for: key)) ?? key.defaultValue }
        set {
            do {
                try set(newValue, for: key)
            } catch {
                if firstFailure == nil { firstFailure = error }
            }
        }
    }

    /// Reads the value as this transaction sees it.
    /// - Throws: ``DefaultsError`` as ``DefaultsStore/value(for:)`` does.
    public func value<Value>(for key: DefaultsKey<Value>) throws -> Value {
        try checkOpen()
        return try core.value(for: key)
    }

    /// Writes inside the transaction.
    /// - Throws: ``DefaultsError`` as ``DefaultsStore/set(_:for:)-qkes`` does; the caller decides
    ///   whether to throw it on (rolling back) or carry on.
    public func set<Value>(_ value: Value, for key: DefaultsKey<Value>) throws {
        try checkOpen()
        try core.set(value, for: key)
    }

    /// Removes the key's row inside the transaction.
    /// - Throws: ``DefaultsError`` as ``DefaultsStore/remove(_:)-2tewr`` does.
    public func remove<Value>(_ key: DefaultsKey<Value>) throws {
        try checkOpen()
        try core.remove(key.name)
    }

    /// Whether the key has a row, as this transaction sees it.
    public func contains<Value>(_ key: DefaultsKey<Value>) -> Bool {
        guard isOpen else { return false }
        return ((try? core.storedValue(key.name)) ?? nil) != nil
    }
}
