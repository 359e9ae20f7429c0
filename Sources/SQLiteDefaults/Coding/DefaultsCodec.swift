/// How one key's value type converts to and from its row, captured when the key is created
/// so that plain `Codable` and `RawRepresentable` types need no conformance.
struct DefaultsCodec<Value: Sendable>: Sendable {
    /// Encodes a value; `.null` means "no row" (an `Optional` set to `nil`).
    let encode: @Sendable (Value) throws -> SQLiteValue
    /// Decodes a stored value.
    let decode: @Sendable (SQLiteValue) throws -> Value
    /// What a declaration of the key says about its type (see `DefaultsStore.declare`).
    let shape: DeclaredShape

    static func serializable() -> Self where Value: DefaultsSerializable {
        Self(encode: { try $0.sqliteValue() }, decode: { try Value(sqliteValue: $0) }, shape: .of(Value.self))
    }

    static func rawValue() -> Self where Value: RawRepresentable, Value.RawValue: DefaultsSerializable {
        Self(encode: { try RawValueCoding.encode($0) }, decode: { try RawValueCoding.decode(Value.self, from: $0) },
             shape: DeclaredShape.rawShape(Value.self))
    }

    /// JSON text. A value that encodes as JSON `null` (an `Optional` that is `nil`, whichever
    /// initializer the compiler picked for the key) removes the row, as for every other type.
    static func json() -> Self where Value: Codable {
        Self(
            encode: { value in
                let stored = try JSONCoding.encode(value)
                return stored == .text("null") ? .null : stored
            },
            decode: { try JSONCoding.decode(Value.self, from: $0) },
            shape: .known(.json, allowed: nil)
        )
    }
}
