import Foundation

// Collections are JSON text. Elements that are `Codable` (every built-in is) go through
// `JSONEncoder` with the library's strategies, so `[Date]` holds the same numbers a `Date`
// row holds. Elements that only conform to `DefaultsSerializable` are written as the JSON
// form of their `SQLiteValue`.

extension Optional: DefaultsSerializable where Wrapped: DefaultsSerializable {
    /// `nil` is SQL NULL, which the store writes by removing the row; otherwise the wrapped value.
    public func sqliteValue() throws -> SQLiteValue {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped.sqliteValue()
        }
    }
    /// NULL reads as `nil`; anything else as the wrapped type.
    /// - Throws: whatever decoding the wrapped type throws.
    public init(sqliteValue: SQLiteValue) throws {
        if case .null = sqliteValue { self = .none } else { self = .some(try Wrapped(sqliteValue: sqliteValue)) }
    }
}

extension Array: DefaultsSerializable where Element: DefaultsSerializable {
    /// Stores a JSON array as TEXT.
    /// - Throws: ``DefaultsError`` (`encodingFailed`) when an element cannot be encoded.
    public func sqliteValue() throws -> SQLiteValue {
        try JSONCoding.encode(map(JSONElement.init))
    }
    /// Reads a JSON array.
    /// - Throws: ``DefaultsError`` (`typeMismatch` unless TEXT, `decodingFailed` for bad JSON or elements).
    public init(sqliteValue: SQLiteValue) throws {
        self = try JSONCoding.decode([JSONElement<Element>].self, from: sqliteValue).map(\.value)
    }
}

extension Set: DefaultsSerializable where Element: DefaultsSerializable {
    /// Stores a JSON array as TEXT, its elements sorted by their JSON text so that equal sets
    /// are equal rows (rewriting an unchanged set notifies nobody).
    /// - Throws: ``DefaultsError`` (`encodingFailed`) when an element cannot be encoded.
    public func sqliteValue() throws -> SQLiteValue {
        let elements = try map { try JSONCoding.encodeText(JSONElement($0)) }.sorted()
        return .text("[" + elements.joined(separator: ",") + "]")
    }
    /// Reads a JSON array.
    /// - Throws: ``DefaultsError`` (`typeMismatch` unless TEXT, `decodingFailed` for bad JSON or elements).
    public init(sqliteValue: SQLiteValue) throws {
        self = Set(try JSONCoding.decode([JSONElement<Element>].self, from: sqliteValue).map(\.value))
    }
}

extension Dictionary: DefaultsSerializable where Key == String, Value: DefaultsSerializable {
    /// Stores a JSON object with sorted keys as TEXT.
    /// - Throws: ``DefaultsError`` (`encodingFailed`) when a value cannot be encoded.
    public func sqliteValue() throws -> SQLiteValue {
        try JSONCoding.encode(mapValues(JSONElement.init))
    }
    /// Reads a JSON object.
    /// - Throws: ``DefaultsError`` (`typeMismatch` unless TEXT, `decodingFailed` for bad JSON or values).
    public init(sqliteValue: SQLiteValue) throws {
        self = try JSONCoding.decode([String: JSONElement<Value>].self, from: sqliteValue).mapValues(\.value)
    }
}

/// One collection element in JSON: through its own `Codable` conformance when it has one,
/// otherwise through its `SQLiteValue`.
struct JSONElement<Value: DefaultsSerializable>: Codable {
    var value: Value

    init(_ value: Value) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let encodable = value as? any Encodable {
            try container.encode(encodable)
            return
        }
        switch try value.sqliteValue() {
        case .null: try container.encodeNil()
        case .integer(let number): try container.encode(number)
        case .real(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        case .invalidUTF8Text:
            throw DefaultsError(.encodingFailed, "TEXT that is not valid UTF-8 cannot be an element of a JSON array")
        case .blob(let bytes): try container.encode(bytes.base64EncodedString())
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let decodable = Value.self as? any Decodable.Type {
            value = try Self.decode(decodable, from: container)
            return
        }
        let stored: SQLiteValue
        if container.decodeNil() {
            stored = .null
        } else if let number = try? container.decode(Int64.self) {
            stored = .integer(number)
        } else if let number = try? container.decode(Double.self) {
            stored = .real(number)
        } else {
            let text = try container.decode(String.self)
            // A BLOB-backed element was written as base64; try it as text first.
            if let value = try? Value(sqliteValue: .text(text)) {
                self.value = value
                return
            }
            guard let bytes = Data(base64Encoded: text) else {
                throw DefaultsError.decodingFailed(Value.self, "'\(text.prefix(80))' is neither its text nor base64 data")
            }
            stored = .blob(bytes)
        }
        value = try Value(sqliteValue: stored)
    }

    private static func decode<D: Decodable>(_ type: D.Type, from container: any SingleValueDecodingContainer) throws -> Value {
        let decoded = try container.decode(D.self)
        guard let value = decoded as? Value else {
            throw DefaultsError.decodingFailed(Value.self, "decoded \(D.self) is not \(Value.self)")
        }
        return value
    }
}

// The shapes the collections keep to: an `Optional` is its wrapped type's (nil removes the
// row, so it is never stored); every collection is JSON text.
extension Optional: DeclaredShapeStating where Wrapped: DefaultsSerializable {
    static var declaredShape: DeclaredShape { DeclaredShape.of(Wrapped.self) }
}

extension Array: DeclaredShapeStating where Element: DefaultsSerializable {
    static var declaredShape: DeclaredShape { .known(.json, allowed: nil) }
}

extension Set: DeclaredShapeStating where Element: DefaultsSerializable {
    static var declaredShape: DeclaredShape { .known(.json, allowed: nil) }
}

extension Dictionary: DeclaredShapeStating where Key == String, Value: DefaultsSerializable {
    static var declaredShape: DeclaredShape { .known(.json, allowed: nil) }
}
