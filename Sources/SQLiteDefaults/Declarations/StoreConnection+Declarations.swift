import Foundation

/// The `defaults_schema` table, read and written on the store's connection (lock held).
extension StoreConnection {
    /// The columns ``declaration(from:)`` reads: `secret` only on a file that has it (a
    /// read-only store may open a file no writer has migrated yet).
    private func columns() throws -> String {
        "key, type, swift_type, default_value, summary, allowed, "
            + (try SchemaVersion.of(database).hasSecrets ? "secret" : "NULL")
    }

    /// Every declaration of a known type, sorted by key (as SQLite orders key bytes). A row
    /// whose type this library does not know is left out (see ``unknownTypeDeclarations()``).
    func declarations() throws -> [DefaultsDeclaration] {
        guard let statement = try schemaStatement("SELECT \(try columns()) FROM defaults_schema ORDER BY key") else { return [] }
        defer { statement.reset() }
        var result: [DefaultsDeclaration] = []
        while try statement.step() {
            if let declaration = try declaration(from: statement) { result.append(declaration) }
        }
        return result
    }

    /// The declaration of `key`, or nil (also when its row names a type this library does not know).
    func declaration(for key: String) throws -> DefaultsDeclaration? {
        guard let statement = try schemaStatement("SELECT \(try columns()) FROM defaults_schema WHERE key = ?1") else { return nil }
        return try statement.withBorrowedText(key, at: 1) {
            try statement.step() ? try declaration(from: statement) : nil
        }
    }

    /// Rows of `defaults_schema` whose type is none of ``DefaultsValueKind``'s, key → the type's
    /// text. The table's CHECK refuses them, but a SQL client can write one with
    /// `PRAGMA ignore_check_constraints = ON`. The triggers then refuse every value for the
    /// key (no type of theirs matches); this library declares nothing for it.
    func unknownTypeDeclarations() throws -> [HashedKey: String] {
        let known = DefaultsValueKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        guard let statement = try schemaStatement("SELECT key, CAST(type AS TEXT) FROM defaults_schema WHERE type IS NULL OR type NOT IN (\(known))") else { return [:] }
        defer { statement.reset() }
        var result: [HashedKey: String] = [:]
        while try statement.step() { result[HashedKey(statement.text(at: 0))] = statement.text(at: 1) }
        return result
    }

    /// The keys declared secret (none on a file before schema 12), by bytes.
    func secretKeys() throws -> Set<HashedKey> {
        guard try SchemaVersion.of(database).hasSecrets,
              let statement = try schemaStatement("SELECT key FROM defaults_schema WHERE secret = 1") else { return [] }
        defer { statement.reset() }
        var keys: Set<HashedKey> = []
        while try statement.step() { keys.insert(HashedKey(statement.text(at: 0))) }
        return keys
    }

    /// Whether `defaults_schema` has a row for `key`, whatever its type says.
    func hasDeclarationRow(for key: String) throws -> Bool {
        guard let statement = try schemaStatement("SELECT 1 FROM defaults_schema WHERE key = ?1") else { return false }
        return try statement.withBorrowedText(key, at: 1) { try statement.step() }
    }

    /// A statement reading `defaults_schema`, or nil when the file has none: a file of an
    /// older schema opened read-only (nothing is migrated then) declares nothing.
    private func schemaStatement(_ sql: String) throws -> Statement? {
        do {
            return try database.statement(sql)
        } catch let error as DefaultsError where error.code == .sqlite {
            // Asked of the schema, not read from SQLite's message (whose words are not a contract).
            let exists = try database.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'defaults_schema'")
            if exists == 0 { return nil }
            throw error
        }
    }

    /// Writes (or replaces) a declaration. The schema triggers refuse one that the stored
    /// value or its own default breaks.
    func upsert(_ declaration: DefaultsDeclaration) throws {
        let statement = try database.statement("""
            INSERT INTO defaults_schema(key, type, swift_type, default_value, summary, allowed, secret)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT(key) DO UPDATE SET type = excluded.type, swift_type = excluded.swift_type,
                default_value = excluded.default_value, summary = excluded.summary, allowed = excluded.allowed,
                secret = excluded.secret
            """)
        defer { statement.reset() }
        try statement.bind(.text(declaration.key), at: 1)
        try statement.bind(.text(declaration.type.rawValue), at: 2)
        try statement.bind(declaration.swiftType.map(SQLiteValue.text) ?? .null, at: 3)
        try statement.bind(declaration.defaultValue ?? .null, at: 4)
        try statement.bind(declaration.summary.map(SQLiteValue.text) ?? .null, at: 5)
        try statement.bind(try Self.allowedText(declaration.allowedValues).map(SQLiteValue.text) ?? .null, at: 6)
        try statement.bind(declaration.isSecret ? .integer(1) : .null, at: 7)
        do {
            _ = try statement.step()
        } catch let error as DefaultsError {
            throw refusal(error, declaring: declaration)
        }
        if declaration.isSecret { try scrubHistory(of: declaration.key) }
    }

    /// Removes the declaration of `key`; the key then accepts anything again.
    /// - Returns: whether there was one.
    @discardableResult
    func deleteDeclaration(_ key: String) throws -> Bool {
        let statement = try database.statement("DELETE FROM defaults_schema WHERE key = ?1")
        try statement.withBorrowedText(key, at: 1) { _ = try statement.step() }
        return sqlite3Changes() > 0
    }

    private func sqlite3Changes() -> Int { Int(database.changes) }

    /// The declaration a row holds; nil when its type is not one this library knows.
    private func declaration(from statement: Statement) throws -> DefaultsDeclaration? {
        guard let type = DefaultsValueKind(rawValue: statement.text(at: 1)) else { return nil }
        let swiftType = statement.value(at: 2)
        let defaultValue = statement.value(at: 3)
        let summary = statement.value(at: 4)
        let allowed = statement.value(at: 5)
        let secret = statement.optionalInt64(at: 6) == 1
        return DefaultsDeclaration(
            key: statement.text(at: 0),
            type: type,
            swiftType: swiftType.castText,
            defaultValue: defaultValue == .null ? nil : defaultValue,
            summary: summary.castText,
            allowedValues: try Self.allowedValues(allowed),
            isSecret: secret
        )
    }

    /// The allowed values as the JSON array the table keeps.
    static func allowedText(_ values: [String]?) throws -> String? {
        guard let values else { return nil }
        let data = try JSONSerialization.data(withJSONObject: values, options: [.withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func allowedValues(_ stored: SQLiteValue) throws -> [String]? {
        guard case .text(let text) = stored else { return nil }
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        guard let array = parsed as? [Any] else { return nil }
        return array.map { element in
            switch element {
            case let text as String: text
            case let number as NSNumber: number.stringValue
            default: "\(element)"
            }
        }
    }
}
