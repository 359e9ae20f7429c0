#if Flags
import Foundation
import SQLiteDefaults
import SQLiteDefaultsFlags
import Synchronization
import Testing
import TestScheduling

/// flagd's own conformance suite (flagd-testbed 3.9.0, Resources/flagd-testbed), run row by
/// row through a real store: the evaluator suite over `testkit-flags.json`, the provider
/// targeting suite over `flags/*.json`. Only `@fractional-v1` and `@fractional-v2` rows are
/// skipped: they describe flagd's older bucketing.
@Suite(.offThePool) struct FlagdConformanceTests {
    static let skippedTags: Set<String> = ["@fractional-v1", "@fractional-v2"]

    struct Row: CustomTestStringConvertible, Sendable {
        let suite: String
        let feature: String
        let name: String
        let steps: [GherkinFeature.Step]
        var testDescription: String { "\(suite)/\(feature): \(name)" }
    }

    static var testbed: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources/flagd-testbed")
    }

    /// Every row of both suites: (runnable, skipped).
    static func rows() throws -> (run: [Row], skipped: [Row]) {
        var run: [Row] = [], skipped: [Row] = []
        let evaluatorFeatures = try FileManager.default.contentsOfDirectory(atPath: testbed.appendingPathComponent("evaluator/gherkin").path)
            .filter { $0.hasSuffix(".feature") }.sorted().map { ("evaluator", "evaluator/gherkin/" + $0) }
        for (suite, path) in evaluatorFeatures + [("targeting", "gherkin/targeting.feature")] {
            let feature = try GherkinFeature(text: String(contentsOf: testbed.appendingPathComponent(path), encoding: .utf8))
            for item in feature.cases {
                let row = Row(suite: suite, feature: path, name: item.name, steps: item.steps)
                if item.tags.isDisjoint(with: skippedTags) { run.append(row) } else { skipped.append(row) }
            }
        }
        return (run, skipped)
    }

    static let runnable: [Row] = (try? rows().run) ?? []

    /// The flag sets the suites use: `testkit-flags.json` for the evaluator suite; every
    /// `flags/*.json` for the targeting suite, flags and evaluators merged (their keys do not
    /// collide, except one flag of the selector suites, which these suites do not read).
    static func flagSet(for suite: String) throws -> FlagSet {
        if suite == "evaluator" {
            return try FlagSet(json: String(contentsOf: testbed.appendingPathComponent("evaluator/flags/testkit-flags.json"), encoding: .utf8))
        }
        var merged = FlagSet()
        let folder = testbed.appendingPathComponent("flags")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".json") {
            let set = try FlagSet(json: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
            merged.flags.merge(set.flags) { first, _ in first }
            merged.evaluators.merge(set.evaluators) { first, _ in first }
        }
        return merged
    }

    /// One store per suite, loaded once.
    static let stores = Mutex<[String: DefaultsFlags]>([:])

    static func flags(for suite: String) throws -> DefaultsFlags {
        if let ready = stores.withLock({ $0[suite] }) { return ready }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flagd-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try DefaultsStore(path: directory.appendingPathComponent("flags.sqlite").path)
        let flags = DefaultsFlags(store: store)
        // The suites hold a `$ref` to a missing evaluator on purpose (it must evaluate to PARSE_ERROR).
        try flags.load(flagSet(for: suite), actor: "conformance", allowingMissingEvaluators: true)
        return stores.withLock { stores in
            if let raced = stores[suite] { return raced }
            stores[suite] = flags
            return flags
        }
    }

    @Test func theSuitesAreReadWhole() throws {
        let (run, skipped) = try Self.rows()
        // flagd-testbed 3.9.0: counted from the files; a reader that lost rows would fail here.
        #expect(run.filter { $0.suite == "evaluator" }.count == 104)
        #expect(run.filter { $0.suite == "targeting" }.count == 209)
        #expect(skipped.count == 72)
        #expect(run.allSatisfy { row in row.steps.contains { $0.text.hasPrefix("the flag was evaluated") } })
    }

    @Test(arguments: runnable)
    func row(_ row: Row) throws {
        let flags = try Self.flags(for: row.suite)
        var scenario = ScenarioState()
        for step in row.steps {
            try scenario.run(step, flags: flags)
        }
    }
}
#endif
