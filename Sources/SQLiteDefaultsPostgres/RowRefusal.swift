#if Fleet
import SQLiteDefaults

/// Tells a fleet row the file refused from a write that failed, by the error's code and the
/// key's declaration — never by the words of SQLite's message, which change between versions.
///
/// A refusal leaves the transaction open (SQLite aborts the one statement), so the other rows
/// of the batch still apply; a failure of the file itself (I/O, a full disk, a lock held past
/// the busy timeout, a read-only file) is not a refusal, and fails the apply, to be tried again.
enum RowRefusal {
    /// Why the file refused `row`, when `error` (thrown by writing it) is a refusal; `nil` when
    /// it is a failure to report.
    ///
    /// - Returns: one sentence naming the key: the declaration's own explanation when it has
    ///   one, else the database's.
    /// - Throws: ``DefaultsError`` when reading the key's declaration fails.
    static func reason(for error: DefaultsError, writing row: FleetRow, in transaction: ReplicaTransaction) throws -> String? {
        let declaration: DefaultsDeclaration?
        switch error.code {
        case .declarationConflict:
            declaration = try transaction.declaration(for: row.key)
        case .sqlite:
            declaration = try transaction.declaration(for: row.key)
            // `.constraint`: what `RAISE(ABORT, …)`, `CHECK` and `NOT NULL` raise, from a
            // constraint an operator added to `defaults`. `.error`: what the declared-key
            // triggers raise (a malformed JSON path that carries their sentence), a refusal
            // only when the key is declared: for another key something else went wrong.
            guard error.sqliteResult == .constraint || (error.sqliteResult == .error && declaration != nil) else { return nil }
        default:
            return nil
        }
        if let value = row.value, let explained = try transaction.refusal(of: value, for: row.key) { return explained }
        if error.code == .declarationConflict { return error.message }
        // SQLite's message may quote the value: never for a secret, whose value no log carries.
        let said = declaration?.isSecret == true ? "" : error.sqliteMessage.map { ": \($0)" } ?? ""
        if let declaration {
            return "declared key \"\(row.key)\" is \(declaration.type), and the database refused the value\(said)"
        }
        return "the database refused the row for key \"\(row.key)\"\(said)"
    }
}
#endif
