#if Flags
import SQLiteDefaultsFlags
import Testing
import TestScheduling

/// Every standard JsonLogic operator, with JavaScript's truthiness and coercions (json-logic-js
/// is the reference; the expected values are what it answers).
@Suite(.offThePool) struct JsonLogicTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let rule: String
        let data: String
        let expected: FlagValue
        var testDescription: String { "\(rule) with \(data)" }
    }

    static let cases: [Case] = [
        // Equality, loose and strict.
        Case(rule: #"{"==": [1, "1"]}"#, data: "{}", expected: true),
        Case(rule: #"{"==": [0, false]}"#, data: "{}", expected: true),
        Case(rule: #"{"==": [null, 0]}"#, data: "{}", expected: false),
        Case(rule: #"{"==": [[1], "1"]}"#, data: "{}", expected: true),
        Case(rule: #"{"===": [1, "1"]}"#, data: "{}", expected: false),
        Case(rule: #"{"===": [1, 1.0]}"#, data: "{}", expected: true),
        Case(rule: #"{"!=": ["a", "b"]}"#, data: "{}", expected: true),
        Case(rule: #"{"!==": [1, "1"]}"#, data: "{}", expected: true),
        // Truthiness: an empty array is false, "0" is true.
        Case(rule: #"{"!": [[]]}"#, data: "{}", expected: true),
        Case(rule: #"{"!!": ["0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"!!": [0]}"#, data: "{}", expected: false),
        Case(rule: #"{"!": {"var": "missing"}}"#, data: "{}", expected: true),
        // and / or return an operand, not a boolean.
        Case(rule: #"{"and": [1, "", 3]}"#, data: "{}", expected: ""),
        Case(rule: #"{"and": [1, 2, 3]}"#, data: "{}", expected: 3),
        Case(rule: #"{"or": [0, null, "x"]}"#, data: "{}", expected: "x"),
        Case(rule: #"{"or": [0, false]}"#, data: "{}", expected: false),
        // if / ?: with chains and a missing else.
        Case(rule: #"{"if": [false, "a", false, "b", "c"]}"#, data: "{}", expected: "c"),
        Case(rule: #"{"if": [false, "a"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"?:": [true, "yes", "no"]}"#, data: "{}", expected: "yes"),
        // Comparisons, with three-operand betweens.
        Case(rule: #"{"<": [1, 2, 3]}"#, data: "{}", expected: true),
        Case(rule: #"{"<": [1, 1, 3]}"#, data: "{}", expected: false),
        Case(rule: #"{"<=": [1, 1, 3]}"#, data: "{}", expected: true),
        Case(rule: #"{">": ["11", "2"]}"#, data: "{}", expected: false),
        Case(rule: #"{">": ["11", 2]}"#, data: "{}", expected: true),
        Case(rule: #"{">=": [2, "2"]}"#, data: "{}", expected: true),
        Case(rule: #"{"<": ["a", 1]}"#, data: "{}", expected: false),
        // in, cat, substr.
        Case(rule: #"{"in": ["Spring", "Springfield"]}"#, data: "{}", expected: true),
        Case(rule: #"{"in": ["b", ["a", "b"]]}"#, data: "{}", expected: true),
        Case(rule: #"{"in": [1, ["1"]]}"#, data: "{}", expected: false),
        Case(rule: #"{"cat": ["I love ", {"var": "pie"}, " pie", 1.5, null]}"#, data: #"{"pie": "apple"}"#, expected: "I love apple pie1.5"),
        Case(rule: #"{"substr": ["jsonlogic", 4]}"#, data: "{}", expected: "logic"),
        Case(rule: #"{"substr": ["jsonlogic", -5]}"#, data: "{}", expected: "logic"),
        Case(rule: #"{"substr": ["jsonlogic", 1, 3]}"#, data: "{}", expected: "son"),
        Case(rule: #"{"substr": ["jsonlogic", 4, -2]}"#, data: "{}", expected: "log"),
        // Arithmetic.
        Case(rule: #"{"+": [1, "2", 3.5]}"#, data: "{}", expected: 6.5),
        Case(rule: #"{"+": ["3"]}"#, data: "{}", expected: 3),
        Case(rule: #"{"-": [5]}"#, data: "{}", expected: -5),
        Case(rule: #"{"-": [5, "2"]}"#, data: "{}", expected: 3),
        Case(rule: #"{"*": [2, "3", 4]}"#, data: "{}", expected: 24),
        Case(rule: #"{"/": [7, 2]}"#, data: "{}", expected: 3.5),
        Case(rule: #"{"%": [7, 3]}"#, data: "{}", expected: 1),
        Case(rule: #"{"min": [3, 1, "2"]}"#, data: "{}", expected: 1),
        Case(rule: #"{"max": [3, 1, 2]}"#, data: "{}", expected: 3),
        // var: dotted paths, array indexes, defaults, the whole data.
        Case(rule: #"{"var": "a.b.1"}"#, data: #"{"a": {"b": [10, 20]}}"#, expected: 20),
        Case(rule: #"{"var": ["x", "fallback"]}"#, data: "{}", expected: "fallback"),
        Case(rule: #"{"var": 1}"#, data: "{}", expected: nil),
        Case(rule: #"{"var": {"cat": ["a", ".b"]}}"#, data: #"{"a": {"b": true}}"#, expected: true),
        Case(rule: #"{"var": "targetingKey"}"#, data: #"{"targetingKey": "u1"}"#, expected: "u1"),
        Case(rule: #"{"var": "$flagd.flagKey"}"#, data: "{}", expected: "the-flag"),
        // missing, missing_some.
        Case(rule: #"{"missing": ["a", "b", "c"]}"#, data: #"{"a": 1, "c": ""}"#, expected: ["b", "c"]),
        Case(rule: #"{"missing": {"merge": ["a", "b"]}}"#, data: #"{"b": 1}"#, expected: ["a"]),
        Case(rule: #"{"missing_some": [1, ["a", "b"]]}"#, data: #"{"b": 1}"#, expected: []),
        Case(rule: #"{"missing_some": [2, ["a", "b", "c"]]}"#, data: #"{"b": 1}"#, expected: ["a", "c"]),
        // merge and the array operators.
        Case(rule: #"{"merge": [[1, 2], 3, [[4]]]}"#, data: "{}", expected: [1, 2, 3, [4]]),
        Case(rule: #"{"map": [{"var": "xs"}, {"*": [{"var": ""}, 2]}]}"#, data: #"{"xs": [1, 2]}"#, expected: [2, 4]),
        Case(rule: #"{"filter": [[1, 2, 3], {">": [{"var": ""}, 1]}]}"#, data: "{}", expected: [2, 3]),
        Case(rule: #"{"reduce": [[1, 2, 3], {"+": [{"var": "current"}, {"var": "accumulator"}]}, 10]}"#, data: "{}", expected: 16),
        Case(rule: #"{"all": [[1, 2], {">": [{"var": ""}, 0]}]}"#, data: "{}", expected: true),
        Case(rule: #"{"all": [[], {">": [{"var": ""}, 0]}]}"#, data: "{}", expected: false),
        Case(rule: #"{"none": [[1, 2], {">": [{"var": ""}, 5]}]}"#, data: "{}", expected: true),
        Case(rule: #"{"some": [{"var": "xs"}, {"==": [{"var": "n"}, 2]}]}"#, data: #"{"xs": [{"n": 1}, {"n": 2}]}"#, expected: true),
        Case(rule: #"{"map": ["not an array", 1]}"#, data: "{}", expected: []),
        // Data that is not logic stays data; arrays are evaluated element by element.
        Case(rule: #"{"a": 1, "b": 2}"#, data: "{}", expected: ["a": 1, "b": 2]),
        Case(rule: #"[{"var": "a"}, 2]"#, data: #"{"a": 1}"#, expected: [1, 2]),
        Case(rule: #"{"log": "x"}"#, data: "{}", expected: "x"),
        // flagd's string operators answer null (not false) when misused.
        Case(rule: #"{"starts_with": [{"var": "id"}, "ab"]}"#, data: #"{"id": "abc"}"#, expected: true),
        Case(rule: #"{"ends_with": [{"var": "id"}, "bc"]}"#, data: #"{"id": "abc"}"#, expected: true),
        Case(rule: #"{"starts_with": [1, "1"]}"#, data: "{}", expected: nil),
        // sem_ver: v prefix, partial versions, build metadata, pre-releases.
        Case(rule: #"{"sem_ver": ["v1.2.3", "=", "1.2.3"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["1.2", "=", "1.2.0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["1.0.0+build.5", "=", "1.0.0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["1.0.0-alpha.1", "<", "1.0.0-alpha.beta"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["1.0.0-rc.1", "<", "1.0.0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["01.0.0", "=", "1.0.0"]}"#, data: "{}", expected: nil),
        // The version's core read byte by byte: every malformed shape is null, not a guess.
        Case(rule: #"{"sem_ver": ["1.0.00", "=", "1.0.0"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["0.0.0", "=", "0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["10.20.30", ">", "9.99.99"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["1..2", "=", "1.0.2"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["1.2.", "=", "1.2.0"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": [".1.2", "=", "0.1.2"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["1.2.3.4", "=", "1.2.3"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["", "=", "0.0.0"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["v", "=", "0.0.0"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["V2", "=", "2.0.0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["1.٢.3", "=", "1.2.3"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["18446744073709551615.0.0", ">", "1.0.0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["18446744073709551616.0.0", ">", "1.0.0"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": ["1.2.3-", "=", "1.2.3"]}"#, data: "{}", expected: nil),
        Case(rule: #"{"sem_ver": [2, "=", "2.0.0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["2.3.4", "~", "2.3.0"]}"#, data: "{}", expected: true),
        Case(rule: #"{"sem_ver": ["2.3.4", "^", "3.0.0"]}"#, data: "{}", expected: false),
    ]

    @Test(arguments: cases)
    func evaluates(_ item: Case) throws {
        var context = try FlagEvaluationContext(json: item.data)
        if case .string(let key)? = context.attributes["targetingKey"] { context.targetingKey = key }
        let result = try FlagRule(json: item.rule).evaluate(context, flagKey: "the-flag")
        #expect(result == item.expected || Self.sameNumber(result, item.expected), "got \(result)")
    }

    /// 6.5 and 6.5, 3 and 3.0: JsonLogic's numbers are JavaScript's, one kind.
    static func sameNumber(_ a: FlagValue, _ b: FlagValue) -> Bool {
        func number(_ value: FlagValue) -> Double? {
            switch value {
            case .integer(let n): Double(n)
            case .double(let d): d
            default: nil
            }
        }
        guard let x = number(a), let y = number(b) else { return false }
        return x == y
    }

    @Test func anUnknownOperatorIsRefusedWhenCompiled() {
        #expect(throws: FlagsError.invalidRule("unknown operator \"invalid\"")) { try FlagRule(json: #"{"invalid": [1]}"#) }
    }

    @Test func aRuleNestedTooDeepIsRefusedByName() {
        let deep = String(repeating: #"{"!": "#, count: 200) + "true" + String(repeating: "}", count: 200)
        #expect(throws: FlagsError.ruleTooDeep(FlagRule.maximumDepth)) { try FlagRule(json: deep) }
    }

    @Test func aHugeRuleIsRefusedByName() {
        let huge = #"{"in": [1, ["# + Array(repeating: "1", count: FlagRule.maximumNodes + 1).joined(separator: ",") + "]]}"
        #expect(throws: FlagsError.ruleTooLarge(FlagRule.maximumNodes)) { try FlagRule(json: huge) }
    }

    @Test func jsonDeeperThanTheStoreTakesIsRefusedByName() {
        let deep = String(repeating: "[", count: 1_001) + String(repeating: "]", count: 1_001)
        #expect(throws: FlagsError.tooDeep(FlagJSONParser.maximumDepth)) { try FlagValue(json: deep) }
    }
}
#endif
