#if Flags
/// One flag as flagd's flag-definition schema describes it: `state`, `variants`,
/// `defaultVariant`, `targeting` and `metadata`.
///
/// Reading one checks what flagd's schema requires and what makes a flag unusable (an unknown
/// `state`, no variants, a `defaultVariant` that is not a variant, variants of mixed types,
/// metadata that is not scalar). A `targeting` rule that does not compile is kept: the flag
/// then evaluates to `PARSE_ERROR`, as flagd's does.
///
/// ```swift
/// let flag = try FlagDefinition(key: "new-checkout", json: #"{"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#)
/// ```
public struct FlagDefinition: Sendable {
    /// `ENABLED` or `DISABLED`.
    public enum State: String, Sendable, Hashable {
        /// The flag is evaluated.
        case enabled = "ENABLED"
        /// The flag answers the caller's default with reason `DISABLED`.
        case disabled = "DISABLED"
    }

    /// The flag's key.
    public var key: String { storage.key }
    /// The flag's JSON as given, which is what is stored.
    public var json: FlagValue { storage.json }
    /// The state.
    public var state: State { storage.state }
    /// The variants by name.
    public var variants: [String: FlagValue] { storage.variants }
    /// The default variant; `nil` when absent, `null` or empty.
    public var defaultVariant: String? { storage.defaultVariant }
    /// The targeting rule's JSON; `nil` when absent, `null` or `{}` (the flag is static).
    public var targeting: FlagValue? { storage.targeting }
    /// The compiled rule, or why it does not compile.
    var rule: Result<FlagRule, FlagsError>? { storage.rule }
    /// The default variant's value (nil when there is no default variant).
    var defaultValue: FlagValue? { storage.defaultValue }
    /// The flag's metadata.
    public var metadata: [String: FlagValue] { storage.metadata }

    /// The parts, read once and never changed: one reference, so that handing a flag from the
    /// cache to an evaluation costs one retain, not one per member.
    final class Storage: Sendable {
        let key: String
        let json: FlagValue
        let state: State
        let variants: [String: FlagValue]
        let defaultVariant: String?
        /// The default variant's value, looked up once: a static flag's whole answer, which
        /// would otherwise hash the variant's name on every resolution.
        let defaultValue: FlagValue?
        let targeting: FlagValue?
        let rule: Result<FlagRule, FlagsError>?
        let metadata: [String: FlagValue]

        init(key: String, json: FlagValue, state: State, variants: [String: FlagValue], defaultVariant: String?,
             targeting: FlagValue?, rule: Result<FlagRule, FlagsError>?, metadata: [String: FlagValue]) {
            self.key = key
            self.json = json
            self.state = state
            self.variants = variants
            self.defaultVariant = defaultVariant
            defaultValue = defaultVariant.flatMap { variants[$0] }
            self.targeting = targeting
            self.rule = rule
            self.metadata = metadata
        }
    }

    private let storage: Storage

    /// Reads a flag from its JSON text.
    ///
    /// - Throws: ``FlagsError`` `.invalidJSON`/`.tooDeep` for the text, `.invalidFlag` for
    ///   the flag.
    public init(key: String, json: String) throws(FlagsError) {
        try self.init(key: key, value: FlagJSONParser.parse(json))
    }

    /// Reads a flag from its JSON value.
    ///
    /// - Throws: ``FlagsError`` `.invalidFlag` naming the key and the fault.
    public init(key: String, value: FlagValue) throws(FlagsError) {
        func fault(_ reason: String) -> FlagsError { .invalidFlag(key: key, reason: reason) }
        guard !key.isEmpty else { throw fault("a flag key is not empty (flagd's schema)") }
        guard case .object(let members) = value else { throw fault("a flag is a JSON object") }
        guard case .string(let stateName)? = members["state"], let state = State(rawValue: stateName) else {
            throw fault("state is \"ENABLED\" or \"DISABLED\"")
        }
        guard case .object(let variants)? = members["variants"], !variants.isEmpty else {
            throw fault("variants is an object with at least one variant")
        }
        let kinds = Set(variants.values.map(Self.kind))
        guard kinds.count == 1 else { throw fault("variants mix types (\(kinds.sorted().joined(separator: ", ")))") }
        var defaultVariant: String?
        switch members["defaultVariant"] {
        case nil, .null?, .string("")?: defaultVariant = nil
        case .string(let name)?: defaultVariant = name
        case .bool(let flag)?: defaultVariant = flag ? "true" : "false"
        default: throw fault("defaultVariant is a variant's name")
        }
        if let defaultVariant, variants[defaultVariant] == nil {
            throw fault("defaultVariant \"\(defaultVariant)\" is not a variant")
        }
        var metadata: [String: FlagValue] = [:]
        switch members["metadata"] {
        case nil, .null?: break
        case .object(let entries)?:
            guard entries.allSatisfy({ !$0.key.isEmpty && Self.isMetadataValue($0.value) }) else {
                throw fault("metadata values are strings, numbers or booleans")
            }
            metadata = entries
        default: throw fault("metadata is an object")
        }
        let targeting: FlagValue?
        let rule: Result<FlagRule, FlagsError>?
        switch members["targeting"] {
        case nil, .null?: targeting = nil; rule = nil
        case .object(let members)? where members.isEmpty: targeting = nil; rule = nil
        case .object?:
            let given = members["targeting"] ?? .null
            targeting = given
            do throws(FlagsError) { rule = .success(try FlagRule(given)) } catch { rule = .failure(error) }
        case let other?:
            targeting = other
            rule = .failure(.invalidRule("targeting is a JsonLogic object"))
        }
        storage = Storage(key: key, json: value, state: state, variants: variants, defaultVariant: defaultVariant,
                          targeting: targeting, rule: rule, metadata: metadata)
    }

    /// The evaluators the targeting rule names with `$ref` (found in its JSON, so a rule that
    /// does not compile still names them).
    public var references: Set<String> {
        var names: Set<String> = []
        if let targeting { Self.collectReferences(targeting, into: &names) }
        return names
    }

    static func collectReferences(_ value: FlagValue, into names: inout Set<String>) {
        switch value {
        case .array(let elements): for element in elements { collectReferences(element, into: &names) }
        case .object(let members):
            if members.count == 1, case .string(let name)? = members["$ref"] { names.insert(name); return }
            for member in members.values { collectReferences(member, into: &names) }
        default: break
        }
    }

    static func kind(_ value: FlagValue) -> String {
        switch value {
        case .integer, .double: "number"
        case .array, .object: "object"
        default: value.typeName
        }
    }

    static func isMetadataValue(_ value: FlagValue) -> Bool {
        switch value {
        case .bool, .integer, .double, .string: true
        default: false
        }
    }
}
#endif
