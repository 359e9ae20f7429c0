#if Flags
import SQLiteDefaultsFlags
import Testing

/// The state of one flagd-testbed scenario as its steps run: the flag asked for, the context
/// built, the resolution, and the checks of the `Then` steps.
struct ScenarioState {
    struct UnknownStep: Error, CustomStringConvertible {
        let text: String
        var description: String { "no step definition for \"\(text)\"" }
    }

    var type = FlagValueType.string
    var key = ""
    var fallback = FlagValue.null
    var context = FlagEvaluationContext()
    var details: FlagResolutionDetails<FlagValue>?

    mutating func run(_ step: GherkinFeature.Step, flags: DefaultsFlags) throws {
        let text = step.text
        if text == "an evaluator" || text == "a stable flagd provider" || text.hasPrefix("an option ") { return }
        if let match = text.firstMatch(of: /^a (\w+)-flag with key "(.*)" and a (?:fallback|default) value "(.*)"$/) {
            type = try Self.type(String(match.1))
            key = String(match.2)
            fallback = try Self.value(String(match.3), type: String(match.1))
        } else if let match = text.firstMatch(of: /^a context containing a key "(.*)", with type "(.*)" and with value "(.*)"$/) {
            let value = try Self.value(String(match.3), type: String(match.2))
            if match.1 == "targetingKey", case .string(let targetingKey) = value {
                context.targetingKey = targetingKey
            } else {
                context.attributes[String(match.1)] = value
            }
        } else if let match = text.firstMatch(of: /^a context containing a nested property with outer key "(.*)" and inner key "(.*)", with value "(.*)"$/) {
            context.attributes[String(match.1)] = .object([String(match.2): .string(String(match.3))])
        } else if let match = text.firstMatch(of: /^a context containing a targeting key with value "(.*)"$/) {
            context.targetingKey = String(match.1)
        } else if text == "the flag was evaluated with details" {
            details = flags.resolve(key, type: type, default: fallback, context: context)
        } else if let match = text.firstMatch(of: /^the resolved details value should be "(.*)"$/) {
            let expected = try Self.value(String(match.1), type: Self.typeName(type))
            #expect(resolved.value == expected, "\(resolved)")
        } else if let match = text.firstMatch(of: /^the reason should be "(.*)"$/) {
            #expect(resolved.reason.rawValue == String(match.1), "\(resolved)")
        } else if let match = text.firstMatch(of: /^the error-code should be "(.*)"$/) {
            #expect((resolved.errorCode?.rawValue ?? "") == String(match.1), "\(resolved)")
        } else if text == "the resolved metadata is empty" {
            #expect(resolved.metadata.isEmpty, "\(resolved)")
        } else if text == "the resolved metadata should contain" {
            for row in step.table.dropFirst() where row.count == 3 {
                #expect(resolved.metadata[row[0]] == (try Self.value(row[2], type: row[1])), "\(row) in \(resolved.metadata)")
            }
        } else {
            throw UnknownStep(text: text)
        }
    }

    var resolved: FlagResolutionDetails<FlagValue> {
        details ?? FlagResolutionDetails(value: .null, variant: nil, reason: .error)
    }

    static func type(_ name: String) throws -> FlagValueType {
        switch name {
        case "Boolean": .boolean
        case "String": .string
        case "Integer": .integer
        case "Float": .float
        case "Object": .object
        default: throw UnknownStep(text: "type \(name)")
        }
    }

    static func typeName(_ type: FlagValueType) -> String {
        switch type {
        case .boolean: "Boolean"
        case .string: "String"
        case .integer: "Integer"
        case .float: "Float"
        case .object: "Object"
        }
    }

    /// A table cell read as the step's type names it.
    static func value(_ text: String, type: String) throws -> FlagValue {
        switch type {
        case "Boolean": return .bool(text == "true")
        case "Integer":
            guard let number = Int64(text) else { throw UnknownStep(text: "integer \(text)") }
            return .integer(number)
        case "Float":
            guard let number = Double(text) else { throw UnknownStep(text: "float \(text)") }
            return .double(number)
        case "Object":
            // The evaluator suite writes `{\"a\": 1}` in its tables.
            return try FlagValue(json: text.replacing("\\\"", with: "\""))
        default:
            return .string(text)
        }
    }
}
#endif
