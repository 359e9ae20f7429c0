import Foundation

extension DefaultsKey {
    /// The declaration this key makes: its type in the CLI's vocabulary, its Swift type, its
    /// default as stored, its summary and, for a `CaseIterable` `RawRepresentable` value, the
    /// allowed raw values.
    ///
    /// ```swift
    /// let declaration = try DefaultsKeys.timeout.declaration()   // type .int, default .integer(30)
    /// ```
    ///
    /// A type of your own (``DefaultsSerializable``) is declared by how its default is stored
    /// (TEXT that is its JSON encoding: `json`; other TEXT: `string`).
    ///
    /// - Throws: ``DefaultsError`` — `.invalidKey` for an empty name; `.declarationConflict`
    ///   for a type that keeps to no one declared type (`UInt64` and `UInt`, whose largest
    ///   values are stored as TEXT; an untyped `SQLiteValue` key; a type of your own with a
    ///   `nil` default, which says nothing of how it is stored); `.encodingFailed` when the
    ///   default cannot be encoded.
    public func declaration() throws -> DefaultsDeclaration {
        try StoreEngine.validate(name)
        let stored: SQLiteValue?
        do {
            let encoded = try codec.encode(defaultValue)
            stored = encoded == .null ? nil : encoded
        } catch let error as DefaultsError {
            throw error.naming(key: name)
        } catch {
            throw DefaultsError(.encodingFailed, "the default of key '\(name)' cannot be encoded: \(error)", key: name)
        }
        if case .real(let number)? = stored, number.isNaN {
            throw DefaultsError(.encodingFailed, "the default of key '\(name)' is NaN, which SQLite cannot store", key: name)
        }
        let type: DefaultsValueKind
        var allowed: [String]?
        switch codec.shape {
        case .known(let kind, let values):
            type = kind
            allowed = values
        case .undeclarable(let reason):
            throw DefaultsError(.declarationConflict, "key '\(name)' (\(Value.self)) cannot be declared: \(reason)", key: name)
        case .inferred:
            guard let stored else {
                throw DefaultsError(.declarationConflict, "key '\(name)' (\(Value.self)) cannot be declared: its nil default does not say how \(Value.self) is stored; give the key a non-nil default", key: name)
            }
            type = inferredKind(of: stored)
        }
        if let values = allowed, let stored, let text = stored.castText, !values.contains(text) { allowed = nil }
        return DefaultsDeclaration(key: name, type: type, swiftType: String(describing: Value.self),
                                   defaultValue: stored, summary: summary, allowedValues: allowed, isSecret: isSecret)
    }

    /// The kind of a type of the user's own, from its stored default.
    private func inferredKind(of stored: SQLiteValue) -> DefaultsValueKind {
        switch stored {
        case .integer: return .int
        case .real: return .double
        case .blob: return .data
        case .null, .invalidUTF8Text: return .string
        case .text(let text):
            // JSON when the type stores exactly its JSON encoding (an empty `DefaultsSerializable`
            // conformance of a `Codable` type), so every value of it is JSON.
            if let encodable = defaultValue as? any Encodable,
               let json = try? JSONCoding.encodeText(encodable), json == text {
                return .json
            }
            return .string
        }
    }
}
