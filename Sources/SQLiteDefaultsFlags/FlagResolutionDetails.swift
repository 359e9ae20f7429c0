#if Flags
/// Why a resolution has its value, in flagd's and OpenFeature's words.
public enum FlagResolutionReason: String, Sendable, Hashable, CaseIterable {
    /// The flag has no targeting rule: its default variant.
    case `static` = "STATIC"
    /// The targeting rule chose the variant.
    case targetingMatch = "TARGETING_MATCH"
    /// The rule chose nothing (`null`): the flag's default variant, or the caller's default
    /// when the flag has none.
    case `default` = "DEFAULT"
    /// The flag's state is `DISABLED`: the caller's default.
    case disabled = "DISABLED"
    /// Resolution failed (see the error code): the caller's default.
    case error = "ERROR"
}

/// Why a resolution failed, in OpenFeature's error codes.
public enum FlagErrorCode: String, Sendable, Hashable, CaseIterable {
    /// No flag of that key is in the store.
    case flagNotFound = "FLAG_NOT_FOUND"
    /// The variant's value is not of the type asked for.
    case typeMismatch = "TYPE_MISMATCH"
    /// The flag's JSON or its targeting rule cannot be read (an unknown operator, a `$ref` to
    /// a missing evaluator, a rule too deep), or its key holds no valid flag.
    case parseError = "PARSE_ERROR"
    /// Any other failure: a rule that chose a variant the flag does not have.
    case general = "GENERAL"
}

/// A failed resolution's code and message (OpenFeature's `errorCode` and `errorMessage`).
public struct FlagResolutionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error code.
    public let code: FlagErrorCode
    /// What went wrong, in words.
    public let message: String

    /// An error with its code and message.
    public init(code: FlagErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    /// `CODE: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// The result of resolving a flag: the value and how it was chosen — the shape of
/// OpenFeature's resolution details (`OpenFeatureResolution` in swift-open-feature: value,
/// variant, reason, error), plus the flag's metadata.
///
/// Resolution never throws: a failure is a value with ``reason`` `.error`, ``error`` set and
/// ``value`` the caller's default.
///
/// ```swift
/// let details = flags.boolean("new-checkout", default: false, context: context)
/// if details.value { … }
/// print(details.reason, details.variant ?? "-")
/// ```
public struct FlagResolutionDetails<Value: Sendable>: Sendable {
    /// The resolved value, or the caller's default.
    public var value: Value
    /// The variant chosen; `nil` when the caller's default was returned.
    public var variant: String?
    /// Why this value.
    public var reason: FlagResolutionReason
    /// Set when ``reason`` is `.error`.
    public var error: FlagResolutionError?
    /// The flag-set metadata overlaid with the flag's own (flagd's merge: the flag's entry
    /// wins); empty when the flag is not found.
    public var metadata: [String: FlagValue]

    /// A resolution with every member given.
    public init(value: Value, variant: String?, reason: FlagResolutionReason, error: FlagResolutionError? = nil, metadata: [String: FlagValue] = [:]) {
        self.value = value
        self.variant = variant
        self.reason = reason
        self.error = error
        self.metadata = metadata
    }

    /// The error code, when resolution failed.
    public var errorCode: FlagErrorCode? { error?.code }
}

extension FlagResolutionDetails: Equatable where Value: Equatable {}
extension FlagResolutionDetails: Hashable where Value: Hashable {}

/// The type a flag is resolved as; a variant of another type answers `TYPE_MISMATCH`.
public enum FlagValueType: String, Sendable, Hashable, CaseIterable {
    /// `true` or `false`.
    case boolean
    /// A string.
    case string
    /// An integer (a variant written with a fraction or exponent does not match).
    case integer
    /// Any number (an integer variant is widened).
    case float
    /// An object or an array.
    case object

    /// Whether a variant's value is of this type.
    public func matches(_ value: FlagValue) -> Bool {
        switch (self, value) {
        case (.boolean, .bool), (.string, .string), (.integer, .integer), (.float, .integer), (.float, .double),
             (.object, .object), (.object, .array): true
        default: false
        }
    }
}
#endif
