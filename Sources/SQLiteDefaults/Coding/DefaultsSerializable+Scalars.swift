import Foundation

// Scalars are stored in SQLite's native storage classes so that any SQL client reads them
// as what they are. Decoding is strict about the class: a TEXT row under an `Int` key is a
// type mismatch, not a parse attempt. The one widening accepted is INTEGER → floating point.

extension Bool: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.bool, allowed: nil) }

    /// Stores `1` or `0` as INTEGER.
    public func sqliteValue() throws -> SQLiteValue { .integer(self ? 1 : 0) }
    /// Reads INTEGER `0` or `1`.
    /// - Throws: ``DefaultsError`` (`typeMismatch` for another class, `decodingFailed` for another number).
    public init(sqliteValue: SQLiteValue) throws {
        guard case .integer(let number) = sqliteValue else { throw DefaultsError.typeMismatch(Bool.self, found: sqliteValue) }
        switch number {
        case 0: self = false
        case 1: self = true
        default: throw DefaultsError.decodingFailed(Bool.self, "\(number) is neither 0 nor 1")
        }
    }
}

/// Integers that fit SQLite's signed 64-bit INTEGER, with a range check on the way back.
protocol SQLiteInteger: FixedWidthInteger, DefaultsSerializable, DeclaredShapeStating {}

extension SQLiteInteger {
    static var declaredShape: DeclaredShape { .known(.int, allowed: nil) }

    /// Stores the number as INTEGER.
    public func sqliteValue() throws -> SQLiteValue { .integer(Int64(self)) }
    /// Reads an INTEGER in this type's range.
    /// - Throws: ``DefaultsError`` (`typeMismatch` for another class, `decodingFailed` out of range).
    public init(sqliteValue: SQLiteValue) throws {
        guard case .integer(let number) = sqliteValue else { throw DefaultsError.typeMismatch(Self.self, found: sqliteValue) }
        guard let value = Self(exactly: number) else {
            throw DefaultsError.decodingFailed(Self.self, "\(number) is out of range")
        }
        self = value
    }
}

extension Int: SQLiteInteger {}
extension Int8: SQLiteInteger {}
extension Int16: SQLiteInteger {}
extension Int32: SQLiteInteger {}
extension Int64: SQLiteInteger {}
extension UInt8: SQLiteInteger {}
extension UInt16: SQLiteInteger {}
extension UInt32: SQLiteInteger {}

/// Unsigned 64-bit numbers: INTEGER when they fit SQLite's signed range, otherwise their
/// decimal digits as TEXT, so every value round-trips exactly and reads correctly in SQL.
protocol SQLiteWideUnsigned: FixedWidthInteger & UnsignedInteger & DefaultsSerializable & LosslessStringConvertible & DeclaredShapeStating {}

extension SQLiteWideUnsigned {
    static var declaredShape: DeclaredShape {
        .undeclarable("\(Self.self) values above Int64.max are stored as TEXT, so no one declared type holds them all; declare an Int key")
    }

    /// Stores INTEGER up to `Int64.max`, decimal TEXT above.
    public func sqliteValue() throws -> SQLiteValue {
        if let small = Int64(exactly: self) { return .integer(small) }
        return .text(String(self))
    }
    /// Reads a non-negative INTEGER or decimal TEXT.
    /// - Throws: ``DefaultsError`` (`typeMismatch` for another class, `decodingFailed` for a bad number).
    public init(sqliteValue: SQLiteValue) throws {
        switch sqliteValue {
        case .integer(let number):
            guard let value = Self(exactly: number) else {
                throw DefaultsError.decodingFailed(Self.self, "\(number) is out of range")
            }
            self = value
        case .text(let digits):
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Self(digits) else {
                throw DefaultsError.decodingFailed(Self.self, "'\(digits.prefix(40))' is not a decimal number")
            }
            self = value
        default:
            throw DefaultsError.typeMismatch(Self.self, found: sqliteValue)
        }
    }
}

extension UInt: SQLiteWideUnsigned {}
extension UInt64: SQLiteWideUnsigned {}

extension Double: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.double, allowed: nil) }

    /// Stores REAL.
    public func sqliteValue() throws -> SQLiteValue { .real(self) }
    /// Reads REAL, or INTEGER widened.
    /// - Throws: ``DefaultsError`` (`typeMismatch`) for TEXT, BLOB or NULL.
    public init(sqliteValue: SQLiteValue) throws {
        switch sqliteValue {
        case .real(let number): self = number
        case .integer(let number): self = Double(number)
        default: throw DefaultsError.typeMismatch(Double.self, found: sqliteValue)
        }
    }
}

extension Float: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.double, allowed: nil) }

    /// Stores REAL (every `Float` is exactly a `Double`).
    public func sqliteValue() throws -> SQLiteValue { .real(Double(self)) }
    /// Reads REAL, or INTEGER widened.
    /// - Throws: ``DefaultsError`` (`typeMismatch`) for TEXT, BLOB or NULL.
    public init(sqliteValue: SQLiteValue) throws { self = Float(try Double(sqliteValue: sqliteValue)) }
}

extension String: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.string, allowed: nil) }

    /// Stores TEXT.
    public func sqliteValue() throws -> SQLiteValue { .text(self) }
    /// Reads TEXT.
    /// - Throws: ``DefaultsError`` — `decodingFailed` for TEXT whose bytes are not valid UTF-8
    ///   (``SQLiteValue/invalidUTF8Text(_:)``: a `String` would change them), `typeMismatch`
    ///   for any other class.
    public init(sqliteValue: SQLiteValue) throws {
        if case .invalidUTF8Text(let bytes) = sqliteValue {
            throw DefaultsError(.decodingFailed, "the stored TEXT is not valid UTF-8 (\(bytes.count) bytes), so it cannot be read as a String without changing it")
        }
        guard case .text(let text) = sqliteValue else { throw DefaultsError.typeMismatch(String.self, found: sqliteValue) }
        self = text
    }
}

extension Data: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.data, allowed: nil) }

    /// Stores BLOB.
    public func sqliteValue() throws -> SQLiteValue { .blob(self) }
    /// Reads BLOB.
    /// - Throws: ``DefaultsError`` (`typeMismatch`) for any other class.
    public init(sqliteValue: SQLiteValue) throws {
        guard case .blob(let bytes) = sqliteValue else { throw DefaultsError.typeMismatch(Data.self, found: sqliteValue) }
        self = bytes
    }
}

extension URL: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.url, allowed: nil) }

    /// Stores the absolute string as TEXT.
    public func sqliteValue() throws -> SQLiteValue { .text(absoluteString) }
    /// Reads TEXT that parses as a URL.
    /// - Throws: ``DefaultsError`` (`typeMismatch` for another class, `decodingFailed` for text that is no URL).
    public init(sqliteValue: SQLiteValue) throws {
        let text = try String(sqliteValue: sqliteValue)
        guard let url = URL(string: text) else {
            throw DefaultsError.decodingFailed(URL.self, "'\(text.prefix(80))' is not a URL")
        }
        self = url
    }
}

extension Date: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.date, allowed: nil) }

    /// Stores seconds since 1970-01-01 UTC as REAL (sub-microsecond precision today),
    /// which SQL reads with `datetime(value, 'unixepoch')`.
    public func sqliteValue() throws -> SQLiteValue { .real(timeIntervalSince1970) }
    /// Reads REAL or INTEGER seconds since 1970.
    /// - Throws: ``DefaultsError`` (`typeMismatch`) for TEXT, BLOB or NULL.
    public init(sqliteValue: SQLiteValue) throws {
        self = Date(timeIntervalSince1970: try Double(sqliteValue: sqliteValue))
    }
}

extension UUID: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape { .known(.string, allowed: nil) }

    /// Stores the canonical string as TEXT.
    public func sqliteValue() throws -> SQLiteValue { .text(uuidString) }
    /// Reads TEXT in UUID form (any letter case).
    /// - Throws: ``DefaultsError`` (`typeMismatch` for another class, `decodingFailed` for another text).
    public init(sqliteValue: SQLiteValue) throws {
        let text = try String(sqliteValue: sqliteValue)
        guard let uuid = UUID(uuidString: text) else {
            throw DefaultsError.decodingFailed(UUID.self, "'\(text.prefix(80))' is not a UUID")
        }
        self = uuid
    }
}
