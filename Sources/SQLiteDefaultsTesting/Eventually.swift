/// The error ``eventually(timeout:pollingEvery:_:fileID:line:_:)`` and ``DefaultsChangeCollector``
/// throw when what a test waits for did not happen in time.
///
/// ```swift
/// do {
///     try await eventually("the sync connected") { sync.isConnected }
/// } catch let error as WaitTimedOut {
///     print(error)   // "the sync connected: not within 10.0 seconds (MyTests/SyncTests.swift:12)"
/// }
/// ```
public struct WaitTimedOut: Error, CustomStringConvertible, Sendable {
    /// What the test waited for, in its own words.
    public let what: String
    /// How long it waited.
    public let timeout: Duration
    /// The file (`#fileID`) of the wait.
    public let fileID: String
    /// The line of the wait.
    public let line: Int

    /// An error saying that `what` did not happen within `timeout`, at `fileID`:`line`.
    public init(what: String, timeout: Duration, fileID: String, line: Int) {
        self.what = what
        self.timeout = timeout
        self.fileID = fileID
        self.line = line
    }

    /// One line: what was awaited, for how long, and where.
    public var description: String {
        "\(what): not within \(timeout.formatted()) (\(fileID):\(line))"
    }
}

extension Duration {
    /// "0.5 seconds", "10.0 seconds": whole numbers of milliseconds, which is what tests wait.
    fileprivate func formatted() -> String {
        let milliseconds = components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
        return "\(Double(milliseconds) / 1_000) seconds"
    }
}

/// Waits until `condition` holds, checking it every `interval`, and throws when `timeout`
/// passes first: the one way to wait for something that happens on another thread, in another
/// store or in another process.
///
/// ```swift
/// try await eventually("the other store sees the write") { other[.name] == "Ada" }
/// #expect(other[.name] == "Ada")
/// ```
///
/// It returns as soon as the condition holds, so a generous `timeout` costs nothing when the
/// code works and only makes a failure wait longer; it never holds a thread of the cooperative
/// pool while it waits. A condition that throws counts as "not yet"; the last error it threw is
/// named in the timeout's description.
///
/// To show that something did *not* happen, do not wait a fixed time: make one more change
/// after it (a marker, from the same writer), wait for the marker, then check.
///
/// - Parameters:
///   - timeout: how long to wait at most (10 seconds unless told).
///   - interval: how long to sleep between two checks (5 ms unless told).
///   - what: what the test waits for, for the error's description.
///   - fileID: the file of the call, for the error's description.
///   - line: the line of the call, for the error's description.
///   - condition: the check; `true` ends the wait.
/// - Throws: ``WaitTimedOut`` when `condition` did not hold within `timeout`;
///   `CancellationError` when the waiting task is cancelled.
public func eventually(
    timeout: Duration = .seconds(10),
    pollingEvery interval: Duration = .milliseconds(5),
    _ what: @autoclosure () -> String = "condition",
    fileID: String = #fileID,
    line: Int = #line,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    var lastError: (any Error)?
    while true {
        do {
            if try await condition() { return }
            lastError = nil
        } catch {
            lastError = error
        }
        if ContinuousClock.now >= deadline { break }
        try await Task.sleep(for: interval)
    }
    let described = lastError.map { "\(what()) (last check threw \($0))" } ?? what()
    throw WaitTimedOut(what: described, timeout: timeout, fileID: fileID, line: line)
}
