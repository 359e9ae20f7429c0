#if Flags
/// A JSON value as flagd's flag sets and evaluation contexts hold it: a variant's value, a
/// context attribute, a metadata entry or a JsonLogic operand.
///
/// Integers and floating-point numbers stay distinct (`10` is ``integer(_:)``, `10.0` is
/// ``double(_:)``), as flagd's cores keep them, so an integer flag is not answered by a float
/// variant and a bucketing key hashes as flagd hashes it.
///
/// ```swift
/// let value = try FlagValue(json: #"{"tier": "gold", "seats": 3}"#)
/// value["tier"]  // .string("gold")
/// ```
public enum FlagValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits a signed 64-bit integer.
    case integer(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([FlagValue])
    /// An object; member order carries no meaning.
    case object([String: FlagValue])

    /// Parses JSON text (RFC 8259; a repeated object member keeps its last value, as flagd's
    /// cores do).
    ///
    /// - Throws: ``FlagsError`` `.invalidJSON` when the text is not JSON, `.tooDeep` when
    ///   arrays and objects nest deeper than ``FlagJSONParser/maximumDepth``.
    public init(json: String) throws {
        self = try FlagJSONParser.parse(json)
    }

    /// The member `name` of an object, `nil` for anything else or a missing member.
    public subscript(name: String) -> FlagValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }

    /// Compact JSON text with object members sorted by name, so that equal values have equal
    /// text (the form a flag is stored in).
    public var jsonText: String {
        var out = ""
        FlagJSONWriter.write(self, into: &out)
        return out
    }

    /// The name of the value's JSON type, for messages: `null`, `boolean`, `integer`, `number`,
    /// `string`, `array` or `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension FlagValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
    /// An array value.
    public init(arrayLiteral elements: FlagValue...) { self = .array(elements) }
    /// An object value (a repeated name keeps its last value).
    public init(dictionaryLiteral elements: (String, FlagValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension FlagValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String { jsonText }
}
#endif
