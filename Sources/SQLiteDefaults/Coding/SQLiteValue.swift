import Foundation

/// A value as SQLite stores it in one row: one of its five storage classes.
///
/// Every ``DefaultsSerializable`` type converts to and from one of these. Scalars use the
/// native classes (`Int` → `.integer`, `Double` → `.real`, `String` → `.text`, `Data` → `.blob`);
/// collections and `Codable` types are JSON in `.text`. Any SQL client sees the same values:
///
/// ```sql
/// SELECT key, typeof(value), value FROM defaults;
/// ```
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A signed 64-bit integer (`INTEGER`).
    case integer(Int64)
    /// An IEEE double (`REAL`).
    case real(Double)
    /// UTF-8 text (`TEXT`).
    case text(String)
    /// Bytes (`BLOB`).
    case blob(Data)
    /// TEXT whose bytes are not valid UTF-8, kept byte for byte.
    ///
    /// SQLite stores whatever bytes a client gives it as TEXT (`CAST(x'61FF62' AS TEXT)` in
    /// the `sqlite3` shell); a `String` cannot hold them without replacing the invalid ones.
    /// Reading such a row yields this case, and writing it back stores the same bytes as TEXT,
    /// so nothing is changed on the way through. A typed `String` read of it throws
    /// ``DefaultsError/Code/decodingFailed``.
    ///
    /// ```swift
    /// if case .invalidUTF8Text(let bytes) = try store.value(for: DefaultsKey<SQLiteValue?>("k")) { … }
    /// ```
    case invalidUTF8Text(Data)

    /// SQLite's name for the storage class, as `typeof(value)` reports it.
    public var storageClass: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text, .invalidUTF8Text: "text"
        case .blob: "blob"
        }
    }

    /// Two values are the same stored value when they hold the same class and the same bits:
    /// unlike `==` on doubles, `-0.0` differs from `0.0` here (SQLite keeps the sign, and a
    /// change of sign is a change), and NaN equals NaN.
    func isSameStoredValue(as other: SQLiteValue) -> Bool {
        switch (self, other) {
        case let (.real(a), .real(b)): a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
        default: self == other
        }
    }

    /// Whether two rows (`nil`: no row) hold the same stored value, by ``isSameStoredValue(as:)``.
    /// Package API: the fleet sync compares rows with the same rule as the engine.
    package static func isSameRow(_ a: SQLiteValue?, _ b: SQLiteValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): a.isSameStoredValue(as: b)
        default: false
        }
    }
}

extension SQLiteValue: DefaultsSerializable, DeclaredShapeStating {
    static var declaredShape: DeclaredShape {
        .undeclarable("a SQLiteValue key is untyped; declare it with a DefaultsDeclaration")
    }

    /// Returns the value itself: a `DefaultsKey<SQLiteValue>` reads and writes rows untyped.
    public func sqliteValue() throws -> SQLiteValue { self }
    /// Takes the stored value as it is; never throws.
    public init(sqliteValue: SQLiteValue) throws { self = sqliteValue }
}
