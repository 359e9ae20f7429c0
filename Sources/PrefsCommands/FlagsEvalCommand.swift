#if Prefs && Flags
import ArgumentParser
import SQLiteDefaults
import SQLiteDefaultsFlags

/// `prefs flags eval KEY --type T --default VALUE [--context JSON] [--json]`
struct FlagsEvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Resolve a flag for a context, as flagd would.",
        usage: "prefs flags eval [--db <path>] [--name <app>] <key> --type <type> --default <value> [--context <json>] [--json]",
        discussion: """
            --context is a JSON object: its string member targetingKey is the targeting key, \
            every other member an attribute. --json prints one JSON object: value, reason, \
            variant (absent when none), errorCode (absent unless the reason is ERROR) and \
            metadata. Every resolution exits 0, errors included (FLAG_NOT_FOUND, \
            TYPE_MISMATCH, PARSE_ERROR, GENERAL); bad arguments exit 64.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The flag key.")
    var key: String

    @Option(help: ArgumentHelp("boolean, string, integer, float or object.", valueName: "type"))
    var type: String

    @Option(name: .customLong("default"), help: ArgumentHelp("The value returned when the flag resolves to none, as the type reads it (an object as JSON).", valueName: "value"))
    var defaultValue: String

    @Option(help: ArgumentHelp("The evaluation context, a JSON object.", valueName: "json"))
    var context: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        _ = try parsed()
    }

    /// The type, the default and the context, or a usage error (exit 64).
    func parsed() throws -> (FlagValueType, FlagValue, FlagEvaluationContext) {
        guard let type = FlagValueType(rawValue: type) else {
            throw ValidationError("--type must be boolean, string, integer, float or object, not \"\(type)\"")
        }
        let fallback: FlagValue
        switch type {
        case .boolean:
            guard let flag = Bool(defaultValue) else { throw ValidationError("--default of a boolean flag is true or false") }
            fallback = .bool(flag)
        case .string:
            fallback = .string(defaultValue)
        case .integer:
            guard let number = Int64(defaultValue) else { throw ValidationError("--default of an integer flag is an integer") }
            fallback = .integer(number)
        case .float:
            guard let number = Double(defaultValue), number.isFinite else { throw ValidationError("--default of a float flag is a number") }
            fallback = .double(number)
        case .object:
            let value = try? FlagValue(json: defaultValue)
            switch value {
            case .object?, .array?: fallback = value ?? .null
            default: throw ValidationError("--default of an object flag is a JSON object or array")
            }
        }
        var evaluationContext = FlagEvaluationContext()
        if let context {
            do {
                evaluationContext = try FlagEvaluationContext(json: context)
            } catch {
                throw ValidationError("--context: \(error)")
            }
        }
        return (type, fallback, evaluationContext)
    }

    func run() throws {
        let (type, fallback, context) = try parsed()
        let details: FlagResolutionDetails<FlagValue>
        if let store = try storeOptions.openExisting() {
            details = DefaultsFlags(store: store).resolve(key, type: type, default: fallback, context: context)
        } else {
            details = FlagResolutionDetails(value: fallback, variant: nil, reason: .error,
                                            error: FlagResolutionError(code: .flagNotFound, message: "no database, so no flag \"\(key)\""))
        }
        var object: [String: FlagValue] = ["value": details.value, "reason": .string(details.reason.rawValue), "metadata": .object(details.metadata)]
        if let variant = details.variant { object["variant"] = .string(variant) }
        if details.reason == .error, let code = details.errorCode { object["errorCode"] = .string(code.rawValue) }
        if json {
            print(FlagValue.object(object).jsonText)
        } else {
            var line = "\(details.value) \(details.reason.rawValue)"
            if let variant = details.variant { line += " variant=\(variant)" }
            if let error = details.error { line += " \(error)" }
            print(line)
        }
    }
}
#endif
