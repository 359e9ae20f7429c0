/// A write the declared-key triggers refused, recognised by what the library wrote — never by
/// SQLite's message, whose wording changes between versions ("JSON path error near '…'" up to
/// 3.44, "bad JSON path: '…'" from 3.45, "malformed JSON" for text that does not parse).
///
/// The triggers (Migrations/0010, 0014) fail a refused statement with SQLITE_ERROR. A statement of this
/// library that writes one key and fails that way, when that key is declared, was refused by
/// its declaration: the declaration itself says why.
extension StoreConnection {
    /// `error`, or the declared-key refusal it stands for when the write of `value` to `key`
    /// failed with SQLITE_ERROR and `key` is declared.
    func refusal(_ error: DefaultsError, writing value: SQLiteValue?, to key: String) -> DefaultsError {
        guard error.code == .sqlite, let code = error.sqliteCode, SQLiteResultKind(code: code) == .error else { return error }
        guard let declaration = try? declaration(for: key) else { return error }
        let sentence = value.flatMap { declaration.refusal(of: $0) }
            ?? "declared key \"\(key)\" is \(declaration.type), so this value is refused"
        return DefaultsError(.declarationConflict, sentence, key: key, path: error.path,
                             sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
    }

    /// `error`, or the refusal of `declaration` it stands for when writing the declaration failed
    /// with SQLITE_ERROR or a CHECK constraint: the stored value, the declaration's own default
    /// or its allowed values break it.
    func refusal(_ error: DefaultsError, declaring declaration: DefaultsDeclaration) -> DefaultsError {
        guard error.code == .sqlite, let code = error.sqliteCode,
              SQLiteResultKind(code: code) == .error || SQLiteResultKind.isCheckConstraint(code) else { return error }
        let stored = try? read(declaration.key)
        let sentence = stored.flatMap { declaration.refusal(of: $0) }
            ?? declaration.defaultValue.flatMap { declaration.refusal(of: $0, origin: "default") }
            ?? "declared key \"\(declaration.key)\" is \(declaration.type), so this declaration is refused"
        return DefaultsError(.declarationConflict, sentence, key: declaration.key, path: error.path,
                             sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
    }
}
