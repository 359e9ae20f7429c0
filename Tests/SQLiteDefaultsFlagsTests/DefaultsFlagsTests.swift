#if Flags
import Foundation
import SQLiteDefaults
import SQLiteDefaultsFlags
import SQLiteDefaultsTesting
import Testing
import TestScheduling

/// `DefaultsFlags` over a real store in a temporary directory.
@Suite(.offThePool) struct DefaultsFlagsTests {
    static let set = #"""
        {
          "metadata": {"team": "checkout", "version": 1},
          "$evaluators": {"staff": {"ends_with": [{"var": "email"}, "@example.com"]}},
          "flags": {
            "new-checkout": {
              "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
              "targeting": {"if": [{"$ref": "staff"}, "on", {"fractional": [["on", 10], ["off", 90]]}]},
              "metadata": {"version": 2}
            },
            "greeting": {"state": "ENABLED", "variants": {"hi": "hello", "yo": "hey"}, "defaultVariant": "hi"},
            "limit": {"state": "ENABLED", "variants": {"low": 10, "high": 1000}, "defaultVariant": "low"},
            "ratio": {"state": "ENABLED", "variants": {"half": 0.5, "one": 1}, "defaultVariant": "one"},
            "theme": {"state": "DISABLED", "variants": {"dark": {"bg": "black"}}, "defaultVariant": "dark"}
          }
        }
        """#

    static func makeStore() throws -> (DefaultsStore, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("defaults.sqlite").path
        return (try DefaultsStore(path: path), path)
    }

    @Test func resolvesEveryTypeWithMergedMetadata() throws {
        let (store, _) = try Self.makeStore()
        let flags = DefaultsFlags(store: store)
        try flags.load(FlagSet(json: Self.set), actor: "test")
        let staff = FlagEvaluationContext(targetingKey: "u1", attributes: ["email": "ann@example.com"])
        let checkout = flags.boolean("new-checkout", default: false, context: staff)
        #expect(checkout.value == true)
        #expect(checkout.reason == .targetingMatch)
        #expect(checkout.variant == "on")
        #expect(checkout.metadata == ["team": "checkout", "version": 2])
        let greeting = flags.string("greeting", default: "x")
        #expect(greeting.value == "hello" && greeting.reason == .static && greeting.variant == "hi")
        #expect(flags.integer("limit", default: 0).value == 10)
        #expect(flags.double("ratio", default: 0).value == 1.0)
        let theme = flags.object("theme", default: ["bg": "white"])
        #expect(theme.value == ["bg": "white"] && theme.reason == .disabled && theme.variant == nil)
        let missing = flags.boolean("nope", default: true)
        #expect(missing.value == true && missing.reason == .error && missing.errorCode == .flagNotFound)
        let mismatch = flags.integer("greeting", default: 7)
        #expect(mismatch.value == 7 && mismatch.errorCode == .typeMismatch)
    }

    @Test func loadingWritesOnlyWhatChanged() throws {
        let (store, _) = try Self.makeStore()
        let flags = DefaultsFlags(store: store)
        let first = try flags.load(FlagSet(json: Self.set), actor: "test")
        #expect(first.written.count == 7 && first.removed.isEmpty)
        let again = try flags.load(FlagSet(json: Self.set), actor: "test")
        #expect(again.written.isEmpty && again.removed.isEmpty && again.unchanged.count == 7)
        // One flag changed, one gone: one write and one removal, nothing else.
        var edited = try FlagValue(json: Self.set)
        guard case .object(var members) = edited, case .object(var flagMembers)? = members["flags"] else {
            Issue.record("the set is an object")
            return
        }
        flagMembers["limit"] = ["state": "ENABLED", "variants": ["low": 5], "defaultVariant": "low"]
        flagMembers["greeting"] = nil
        members["flags"] = .object(flagMembers)
        edited = .object(members)
        let before = try store.history(keys: nil, limit: 1_000).count
        let third = try flags.load(FlagSet(json: edited.jsonText), actor: "test", reason: "smaller limit")
        #expect(third.written == ["flagd.flag.limit"])
        #expect(third.removed == ["flagd.flag.greeting"])
        #expect(try store.history(keys: nil, limit: 1_000).count == before + 2)
        #expect(flags.integer("limit", default: 0).value == 5)
        #expect(flags.string("greeting", default: "gone").errorCode == .flagNotFound)
        #expect(try flags.flagKeys() == ["limit", "new-checkout", "ratio", "theme"])
    }

    @Test func aBadSetIsRefusedAndNothingIsWritten() throws {
        let (store, _) = try Self.makeStore()
        let flags = DefaultsFlags(store: store)
        let bad: [(String, String)] = [
            (#"{"flags": {"a": {"state": "ON", "variants": {"x": 1}}}}"#, "state"),
            (#"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1}, "defaultVariant": "y"}}}"#, "not a variant"),
            (#"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1, "y": "1"}}}}"#, "mix types"),
            (#"{"flags": {"": {"state": "ENABLED", "variants": {"x": 1}}}}"#, "not empty"),
            (#"{"flags": {"a": "#, "not valid JSON"),
        ]
        for (text, words) in bad {
            #expect(throws: FlagsError.self) { try FlagSet(json: text) }
            do {
                _ = try FlagSet(json: text)
            } catch {
                #expect(error.description.contains(words), "\(error)")
            }
        }
        let dangling = try FlagSet(json: #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1}, "targeting": {"if": [{"$ref": "nobody"}, "x"]}}}}"#)
        #expect(throws: FlagsError.missingEvaluator(flag: "a", evaluator: "nobody")) { try flags.load(dangling, actor: "test") }
        #expect(try store.keys().isEmpty)
    }

    @Test func aRuleThatIsNotJsonLogicEvaluatesToParseError() throws {
        let (store, _) = try Self.makeStore()
        let flags = DefaultsFlags(store: store)
        try flags.load(FlagSet(json: #"{"flags": {"a": {"state": "ENABLED", "variants": {"x": 1, "y": 2}, "defaultVariant": "x", "targeting": {"no_such_op": [1]}}}}"#), actor: "test")
        let details = flags.integer("a", default: 9)
        #expect(details.value == 9 && details.reason == .error && details.errorCode == .parseError)
    }

    @Test func weightsAboveInt32AndOddContextsFallBackToTheDefaultVariant() throws {
        let (store, _) = try Self.makeStore()
        let flags = DefaultsFlags(store: store)
        try flags.load(FlagSet(json: #"""
            {"flags": {
              "big": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "d": "d"}, "defaultVariant": "d",
                      "targeting": {"fractional": [{"var": "k"}, ["a", 2147483647], ["b", 1]]}},
              "huge": {"state": "ENABLED", "variants": {"a": "a", "d": "d"}, "defaultVariant": "d",
                      "targeting": {"fractional": [{"var": "k"}, ["a", 9223372036854775807], ["a", 9223372036854775807]]}},
              "nested": {"state": "ENABLED", "variants": {"yes": "yes", "no": "no"}, "defaultVariant": "no",
                      "targeting": {"if": [{"and": [{"==": [{"var": "user.plan.tier"}, 3]}, {"var": "user.beta"}]}, "yes", "no"]}}
            }}
            """#), actor: "test")
        let context = FlagEvaluationContext(attributes: ["k": 12, "user": ["plan": ["tier": 3.0], "beta": true]])
        #expect(flags.string("big", default: "x", context: context).reason == .default)
        #expect(flags.string("huge", default: "x", context: context).value == "d")
        #expect(flags.string("nested", default: "x", context: context).value == "yes")
    }

    @Test func aRawWriteIntoAFlagsKeyIsReadAgain() async throws {
        let (store, path) = try Self.makeStore()
        let flags = DefaultsFlags(store: store)
        try flags.load(FlagSet(json: Self.set), actor: "test")
        #expect(flags.integer("limit", default: 0).value == 10)
        // Another connection writes the key as plain text, bypassing the flags API.
        let other = try DefaultsStore(path: path)
        try await other.set(#"{"state": "ENABLED", "variants": {"low": 10, "high": 1000}, "defaultVariant": "high"}"#,
                      for: DefaultsKey<String>("flagd.flag.limit", default: ""))
        try await eventually("the new default variant") { flags.integer("limit", default: 0).value == 1000 }
        try await other.set("not json", for: DefaultsKey<String>("flagd.flag.limit", default: ""))
        try await eventually("a parse error") { flags.integer("limit", default: 0).errorCode == .parseError }
        try await other.set(7, for: DefaultsKey<Int>("flagd.flag.limit", default: 0))
        try await eventually("an error for a number") { flags.integer("limit", default: 3).reason == .error }
        #expect(flags.integer("limit", default: 3).value == 3)
    }

    @Test func updatesYieldWhenTheFlagOrItsEvaluatorChanges() async throws {
        let (store, _) = try Self.makeStore()
        let flags = DefaultsFlags(store: store)
        try flags.load(FlagSet(json: Self.set), actor: "test")
        let context = FlagEvaluationContext(targetingKey: "u1", attributes: ["email": "ann@example.com"])
        let collector = DefaultsChangeCollector(flags.updates("new-checkout", type: .boolean, default: false, context: context))
        let first = try await collector.next()
        #expect(first.value == .bool(true) && first.reason == .targetingMatch)
        // The evaluator it references changes: staff now means another domain.
        var set = try FlagSet(json: Self.set)
        set.evaluators["staff"] = ["ends_with": [["var": "email"], "@corp.example"]]
        try flags.load(set, actor: "test")
        let second = try await collector.next()
        #expect(second.reason == .targetingMatch || second.reason == .default)
        #expect(flags.boolean("new-checkout", default: false, context: context) == second.map { $0 == .bool(true) })
        // An unrelated flag changes, then the flag itself: the next yield is the flag's.
        set.flags["limit"] = try FlagDefinition(key: "limit", json: #"{"state": "ENABLED", "variants": {"low": 1}, "defaultVariant": "low"}"#)
        try flags.load(set, actor: "test")
        set.flags["new-checkout"] = try FlagDefinition(key: "new-checkout", json: #"{"state": "DISABLED", "variants": {"on": true}}"#)
        try flags.load(set, actor: "test")
        let third = try await collector.next()
        #expect(third.reason == .disabled)
        collector.cancel()
    }
}

extension FlagResolutionDetails {
    /// The same details with the value converted.
    func map<Other>(_ convert: (Value) -> Other) -> FlagResolutionDetails<Other> {
        FlagResolutionDetails<Other>(value: convert(value), variant: variant, reason: reason, error: error, metadata: metadata)
    }
}
#endif
