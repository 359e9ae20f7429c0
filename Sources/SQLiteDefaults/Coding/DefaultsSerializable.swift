import Foundation

/// A type that SQLiteDefaults can store in one row of the `defaults` table.
///
/// The library conforms the built-in types (`Bool`, every `Int` and `UInt` width, `Double`,
/// `Float`, `String`, `Data`, `URL`, `Date`, `UUID`, `Optional`, `Array`, `Set`,
/// `Dictionary<String, _>`). Plain `Codable` types and `String`/`Int` enums need no
/// conformance at all: ``DefaultsKey`` picks their coding when it is created.
///
/// To store your own type, convert it to one ``SQLiteValue``:
///
/// ```swift
/// struct Celsius: DefaultsSerializable {
///     var degrees: Double
///     func sqliteValue() throws -> SQLiteValue { .real(degrees) }
///     init(sqliteValue: SQLiteValue) throws { degrees = try Double(sqliteValue: sqliteValue) }
/// }
/// ```
///
/// A `RawRepresentable` or `Codable` type can conform with an empty extension
/// (`extension Theme: DefaultsSerializable {}`), which also lets it sit inside collections.
/// A type that is both is stored as its raw value.
public protocol DefaultsSerializable: Sendable {
    /// The value stored in the row.
    /// - Throws: ``DefaultsError`` with code ``DefaultsError/Code/encodingFailed`` when the value cannot be encoded.
    func sqliteValue() throws -> SQLiteValue

    /// Decodes a value read from the row.
    /// - Throws: ``DefaultsError`` with code ``DefaultsError/Code/typeMismatch`` when the storage class
    ///   is wrong, or ``DefaultsError/Code/decodingFailed`` when its content does not decode.
    init(sqliteValue: SQLiteValue) throws
}

extension DefaultsError {
    /// The stored value's storage class cannot hold `type`.
    static func typeMismatch<T>(_ type: T.Type, found value: SQLiteValue) -> DefaultsError {
        DefaultsError(.typeMismatch, "stored value is \(value.storageClass), which cannot be read as \(T.self)")
    }

    /// The stored value has the right class but not a valid `type`.
    static func decodingFailed<T>(_ type: T.Type, _ reason: String) -> DefaultsError {
        DefaultsError(.decodingFailed, "stored value cannot be decoded as \(T.self): \(reason)")
    }
}

// MARK: - RawRepresentable

extension DefaultsSerializable where Self: RawRepresentable, RawValue: DefaultsSerializable {
    /// Stores the raw value.
    public func sqliteValue() throws -> SQLiteValue { try RawValueCoding.encode(self) }

    /// Decodes the raw value, then the case it names.
    /// - Throws: ``DefaultsError/Code/decodingFailed`` when no case has that raw value.
    public init(sqliteValue: SQLiteValue) throws { self = try RawValueCoding.decode(Self.self, from: sqliteValue) }
}

/// How every `RawRepresentable` is stored: its raw value's coding, then the case it names.
enum RawValueCoding {
    static func encode<Value: RawRepresentable>(_ value: Value) throws -> SQLiteValue where Value.RawValue: DefaultsSerializable {
        try value.rawValue.sqliteValue()
    }

    static func decode<Value: RawRepresentable>(_ type: Value.Type, from stored: SQLiteValue) throws -> Value
    where Value.RawValue: DefaultsSerializable {
        let raw = try Value.RawValue(sqliteValue: stored)
        guard let value = Value(rawValue: raw) else {
            throw DefaultsError.decodingFailed(Value.self, "no case has the raw value \(raw)")
        }
        return value
    }
}

// MARK: - Codable

extension DefaultsSerializable where Self: Codable {
    /// Stores the value as JSON text.
    public func sqliteValue() throws -> SQLiteValue { try JSONCoding.encode(self) }
    /// Decodes the value from JSON text.
    public init(sqliteValue: SQLiteValue) throws { self = try JSONCoding.decode(Self.self, from: sqliteValue) }
}

// A type that is both keeps the raw-value coding, as documented.
extension DefaultsSerializable where Self: RawRepresentable & Codable, RawValue: DefaultsSerializable {
    /// Stores the raw value.
    public func sqliteValue() throws -> SQLiteValue { try RawValueCoding.encode(self) }

    /// Decodes the raw value, then the case it names.
    /// - Throws: ``DefaultsError/Code/decodingFailed`` when no case has that raw value.
    public init(sqliteValue: SQLiteValue) throws { self = try RawValueCoding.decode(Self.self, from: sqliteValue) }
}
