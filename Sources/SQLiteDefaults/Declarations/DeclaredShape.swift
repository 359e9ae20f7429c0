import Foundation

/// What a key's value type says about its declaration, worked out when the key is created.
enum DeclaredShape: Sendable {
    /// The type always stores this kind (and, for a `CaseIterable` enum, one of these raw values).
    case known(DefaultsValueKind, allowed: [String]?)
    /// A type of the user's own (``DefaultsSerializable``): the kind is read from how its
    /// default is stored.
    case inferred
    /// A type whose values do not keep to one kind, with the reason.
    case undeclarable(String)

    /// The shape of a ``DefaultsSerializable`` type.
    static func of(_ type: Any.Type) -> DeclaredShape {
        switch type {
        case is Bool.Type: return .known(.bool, allowed: nil)
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
             is UInt8.Type, is UInt16.Type, is UInt32.Type:
            return .known(.int, allowed: nil)
        case is UInt.Type, is UInt64.Type:
            return .undeclarable("\(type) values above Int64.max are stored as TEXT, so no one declared type holds them all; declare an Int key")
        case is Double.Type, is Float.Type: return .known(.double, allowed: nil)
        case is String.Type, is UUID.Type: return .known(.string, allowed: nil)
        case is Data.Type: return .known(.data, allowed: nil)
        case is URL.Type: return .known(.url, allowed: nil)
        case is Date.Type: return .known(.date, allowed: nil)
        case is SQLiteValue.Type: return .undeclarable("a SQLiteValue key is untyped; declare it with a DefaultsDeclaration")
        case let optional as any OptionalMarker.Type: return of(optional.wrappedType)
        case is any JSONCollectionMarker.Type: return .known(.json, allowed: nil)
        case let raw as any RawRepresentable.Type: return rawShape(raw)
        default: return .inferred
        }
    }

    /// A `RawRepresentable` type is its raw value's kind; a `CaseIterable` one lists its cases.
    static func rawShape<Value: RawRepresentable>(_ type: Value.Type) -> DeclaredShape {
        guard case .known(let kind, _) = of(Value.RawValue.self) else { return of(Value.RawValue.self) }
        return .known(kind, allowed: allowedRawValues(of: type))
    }

    /// The stored text of every case of a `CaseIterable` enum with INTEGER or TEXT raw values.
    static func allowedRawValues<Value: RawRepresentable>(of type: Value.Type) -> [String]? {
        guard let iterable = type as? any CaseIterable.Type else { return nil }
        var allowed: [String] = []
        for element in allCases(of: iterable) {
            guard let value = element as? Value,
                  let raw = value.rawValue as? any DefaultsSerializable,
                  let stored = try? raw.sqliteValue(),
                  let text = stored.castText else { return nil }
            allowed.append(text)
        }
        return allowed
    }

    private static func allCases<Cases: CaseIterable>(of type: Cases.Type) -> [Any] {
        Cases.allCases.map { $0 as Any }
    }
}

/// `Optional`, for finding its wrapped type at run time.
protocol OptionalMarker {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalMarker {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// The collections stored as JSON text.
protocol JSONCollectionMarker {}
extension Array: JSONCollectionMarker {}
extension Set: JSONCollectionMarker {}
extension Dictionary: JSONCollectionMarker {}
