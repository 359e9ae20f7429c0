import Testing

/// Runs each test of the suite it is given to (and of every suite inside it) on
/// ``TestExecutor``, off the cooperative pool. Every suite of the package carries it.
public struct OffThePool: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Around each test case only: a suite's scope would wrap the runner, not the bodies.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> OffThePool? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(TestExecutor.shared.body()) { try await function() }
    }
}

extension Trait where Self == OffThePool {
    /// The test bodies run on ``TestExecutor``, off the cooperative pool (see there why).
    public static var offThePool: OffThePool { OffThePool() }
}
