/// ``waitUntil(timeout:_:)`` for a condition that must await, such as a query through a child
/// process (`try await server.psql(…)`): checks it every 50 ms, suspended in between, until it
/// holds or `timeout` passes; returns whether it held. A condition that throws counts as "not
/// yet". The synchronous ``waitUntil(timeout:_:)`` runs its condition on a thread of the
/// cooperative pool; a condition that waits for a process there holds that thread meanwhile.
@discardableResult
public func waitUntilAwaiting(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if (try? await condition()) == true { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(50))
    }
}
