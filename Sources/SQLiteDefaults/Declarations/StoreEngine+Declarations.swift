/// Declaring and evolving keys: the schema table is written in the engine's transactions, so
/// a declaration joins a surrounding transaction and a refusal rolls everything back.
extension StoreEngine {
    func declare(_ declarations: [DefaultsDeclaration]) throws {
        for declaration in declarations { try Self.validate(declaration) }
        // Unchanged declarations write nothing: read first, without taking the write lock, so
        // that many processes declaring the same keys at start-up never queue for it.
        let unchanged = try withConnection { connection in
            try declarations.allSatisfy { try connection.declaration(for: $0.key) == $0 }
        }
        if unchanged { return }
        try transaction { connection in
            for declaration in declarations {
                if try connection.declaration(for: declaration.key) == declaration { continue }
                try Self.checkStoredValue(declaration, on: connection)
                try connection.upsert(declaration)
            }
        }
    }

    func undeclare(_ key: String) throws {
        try Self.validate(key)
        // Any row, a type this library does not know included: undeclaring is how it goes.
        let declared = try withConnection { try $0.hasDeclarationRow(for: key) }
        guard declared else { return }
        try transaction { connection in _ = try connection.deleteDeclaration(key) }
    }

    /// Every declaration in the file.
    func declarations() throws -> [DefaultsDeclaration] {
        try withConnection { try $0.declarations() }
    }

    func declaration(for key: String) throws -> DefaultsDeclaration? {
        try withConnection { try $0.declaration(for: key) }
    }

    func secretKeys() throws -> Set<HashedKey> {
        try withConnection { try $0.secretKeys() }
    }

    func declarationsOfUnknownType() throws -> [HashedKey: String] {
        try withConnection { try $0.unknownTypeDeclarations() }
    }

    /// ``DefaultsStore/evolve(_:to:converting:)`` in one transaction: the old declarations go,
    /// the stored value is converted and moved, and `declaration` is written.
    func evolve<Old, New>(_ old: DefaultsKey<Old>, to new: DefaultsKey<New>, declaration: DefaultsDeclaration,
                          converting convert: (Old) throws -> New) throws {
        try transaction { connection in
            // A secret stays secret under its new name or type, whatever the new key says.
            var declaration = declaration
            if try connection.declaration(for: old.name)?.isSecret == true { declaration.isSecret = true }
            // Already evolved in place (an earlier start-up): the value is of the new type now.
            if old.name == new.name, try connection.declaration(for: new.name) == declaration { return }
            _ = try connection.deleteDeclaration(old.name)
            if old.name != new.name { _ = try connection.deleteDeclaration(new.name) }
            if let stored = try connection.read(old.name) {
                let converted = try convert(try decode(stored, for: old))
                let row = try encode(converted, for: new)
                if old.name != new.name { try writeRow(old.hashedName, nil, on: connection) }
                try writeRow(new.hashedName, row, on: connection)
            }
            try Self.checkStoredValue(declaration, on: connection)
            try connection.upsert(declaration)
        }
    }

    /// Refuses, with the key and the stored type named, a declaration the stored value breaks.
    static func checkStoredValue(_ declaration: DefaultsDeclaration, on connection: StoreConnection) throws {
        guard let stored = try connection.read(declaration.key), !declaration.accepts(stored) else { return }
        // A secret's value is never quoted: error messages end up in logs.
        let shown = declaration.isSecret ? "" : stored.castText.map { " \($0.prefix(40))" } ?? ""
        throw DefaultsError(
            .declarationConflict,
            "key '\(declaration.key)' holds a \(stored.storageClass) value\(shown), which the declaration as \(declaration.type) refuses; nothing was changed (DefaultsStore.evolve converts a stored value)",
            key: declaration.key)
    }

    /// A declaration that is whole before it reaches the database.
    static func validate(_ declaration: DefaultsDeclaration) throws {
        try validate(declaration.key)
        if let defaultValue = declaration.defaultValue, !declaration.accepts(defaultValue) {
            let reason = declaration.refusal(of: defaultValue, origin: "default") ?? "the default is refused"
            throw DefaultsError(.declarationConflict, reason, key: declaration.key)
        }
        if let allowed = declaration.allowedValues {
            switch declaration.type {
            case .string, .url: break
            case .int:
                if let bad = allowed.first(where: { Int64($0) == nil || String(Int64($0)!) != $0 }) {
                    throw DefaultsError(.declarationConflict, "key '\(declaration.key)' is declared int, so its allowed value '\(bad)' (not an integer as SQL writes it) could never be stored", key: declaration.key)
                }
            default:
                throw DefaultsError(.declarationConflict, "key '\(declaration.key)' is declared \(declaration.type); allowed values apply only to int, string and url keys", key: declaration.key)
            }
            if allowed.isEmpty {
                throw DefaultsError(.declarationConflict, "key '\(declaration.key)' has an empty list of allowed values, so no value could ever be stored", key: declaration.key)
            }
        }
    }
}
