import FuzzTargets
import Testing
import TestScheduling

/// Every input in the repository's fuzz corpora (`Tests/Fuzz/Corpus`) and every input that
/// once broke a promise (`Tests/Fuzz/Regressions`), through the same checks the fuzzers run:
/// the regression tests of what fuzzing found, and a proof that each seed is still handled.
@Suite("Fuzz corpora replayed", .offThePool)
struct FuzzCorpusTests {
    @Test(arguments: FuzzTarget.allCases)
    func everyKeptInputPasses(_ target: FuzzTarget) async throws {
        let inputs = try FuzzCorpus.inputs(of: target)
        #expect(inputs.count >= 10, "the \(target.rawValue) corpus has \(inputs.count) inputs")
        var failures: [String] = []
        for input in inputs {
            do {
                try await target.checkInTask(input.bytes)
            } catch {
                failures.append("\(input.name): \(error.description)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(inputs.count) inputs: \(failures.prefix(3).joined(separator: " | "))")
    }
}
