import Foundation

/// What a key's value type says about its declaration, worked out when the key is created.
///
/// Each built-in conformance states its own shape (``DeclaredShapeStating``), so that this
/// folder knows how a type is stored and the declaration feature only reads the answer.
enum DeclaredShape: Sendable {
    /// The type always stores this kind (and, for a `CaseIterable` enum, one of these raw values).
    case known(DefaultsValueKind, allowed: [String]?)
    /// A type of the user's own (``DefaultsSerializable``): the kind is read from how its
    /// default is stored.
    case inferred
    /// A type whose values do not keep to one kind, with the reason.
    case undeclarable(String)

    /// The shape of a ``DefaultsSerializable`` type: what the type states, else (a user's
    /// `RawRepresentable` with an empty conformance) its raw value's, else inferred from a value.
    static func of(_ type: Any.Type) -> DeclaredShape {
        if let stating = type as? any DeclaredShapeStating.Type { return stating.declaredShape }
        if let raw = type as? any RawRepresentable.Type { return rawShape(raw) }
        return .inferred
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

/// A type that states the shape its stored values keep to: every conformance this library
/// ships adopts it next to its coding, where the storage class is chosen.
///
/// Internal, not a requirement of the public ``DefaultsSerializable``: ``DeclaredShape`` is the
/// library's own vocabulary, and a user's conformance is covered by ``DeclaredShape/of(_:)``'s
/// fallbacks (its raw value's shape, or the kind its default is stored as).
protocol DeclaredShapeStating {
    static var declaredShape: DeclaredShape { get }
}

extension SQLiteValue {
    /// The text SQL's `CAST(value AS TEXT)` gives for an INTEGER or TEXT value (what allowed
    /// values are compared with); `nil` for other classes, whose text this library does not
    /// reproduce exactly.
    var castText: String? {
        switch self {
        case .integer(let number): String(number)
        case .text(let text): text
        default: nil
        }
    }
}
