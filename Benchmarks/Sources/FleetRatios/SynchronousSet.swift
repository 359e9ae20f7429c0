import SQLiteDefaults

/// The synchronous `set`, called from the harness's async code. The fleet's figures time what a
/// local write costs the thread that makes it (the contract's "a local `set` is never slowed by
/// the network"); in async code the store's async `set` of the same name would be chosen, and it
/// hops to the store's own thread. Only a synchronous function picks the synchronous overload.
func setSynchronously<Value>(_ store: DefaultsStore, _ value: Value, for key: DefaultsKey<Value>) throws {
    try store.set(value, for: key)
}
