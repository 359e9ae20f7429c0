import Foundation

/// The writes a key's declaration holds back (Migrations/0015): text that is not JSON for a key
/// declared `json`, and any write of a secret key, which the library writes in a transaction and
/// seals (``SecretSeal``).
///
/// The log triggers mask a secret key's value in every client's entries; only this library
/// can seal it, and it does so in the transaction that logged the entry: the sealed form never
/// lags the commit, and no trigger calls a function of this library's.
extension StoreConnection {
    /// Writes a value to a key the file declares secret: inside a transaction (one of its own
    /// when none is open), the upsert, then the seal of the entry it logged. A key declared
    /// `json` still refuses a text that is not JSON.
    func writeSealed(_ key: HashedKey, _ value: SQLiteValue, isJSON: Bool) throws {
        let outermost = transactionDepth == 0
        if outermost { try begin() }
        let mark = recorder.mark()
        do {
            do {
                try upsert(key, value, isJSON: isJSON, sealing: true)
            } catch let error as DefaultsError where error.code == .sqlite && !isJSON {
                if try heldBack(key.name)?.json == true { throw Self.notJSON(key.name) }
                throw error
            }
            if let entries = recorder.lastStatementSequences { try seal(entries, of: value) }
        } catch {
            if outermost { rollback(to: mark) }
            throw error
        }
        if outermost { _ = try commit() }
    }

    /// Seals the secret entries among `entries` (those the log masked) with `value`, which the
    /// statement that logged them wrote. Called for a key its declaration says is secret; an
    /// entry that is not masked is left alone all the same.
    func seal(_ entries: ClosedRange<Int64>, of value: SQLiteValue) throws {
        guard let fileKey = try HistoryLog.fileKey(database), let message = try sealedMessage(of: value) else { return }
        let update = try database.statement("UPDATE defaults_changes SET sealed = ?3 WHERE seq BETWEEN ?1 AND ?2 AND secret = 1")
        defer { update.reset() }
        try update.bind(entries.lowerBound, at: 1)
        try update.bind(entries.upperBound, at: 2)
        try update.bind(.blob(Data(SecretSeal.seal(message, fileKey: fileKey))), at: 3)
        _ = try update.step()
    }

    /// Replaces the value of every history entry of `key` that still holds one by its sealed
    /// form, in the transaction that declares it secret: the plaintext never outlives that
    /// commit in any table. With `secure_delete` on for the statement, SQLite zeroes the bytes
    /// it frees instead of leaving them in the page.
    func scrubHistory(of key: String) throws {
        try database.execute("PRAGMA secure_delete = ON")
        defer { try? database.execute("PRAGMA secure_delete = OFF") }
        if let fileKey = try HistoryLog.fileKey(database) {
            let rows = try database.statement("""
                SELECT seq, \(Self.messageExpression("value")) FROM defaults_changes
                WHERE key = ?1 AND secret IS NULL AND removed IS NOT 1 AND omitted IS NULL
                """)
            let messages: [(Int64, [UInt8])] = try rows.withBorrowedText(key, at: 1) {
                var found: [(Int64, [UInt8])] = []
                while try rows.step() {
                    if let message = rows.optionalBlob(at: 1) { found.append((rows.int64(at: 0), message)) }
                }
                return found
            }
            let update = try database.statement("UPDATE defaults_changes SET sealed = ?2 WHERE seq = ?1")
            for (sequence, message) in messages {
                defer { update.reset() }
                try update.bind(sequence, at: 1)
                try update.bind(.blob(Data(SecretSeal.seal(message, fileKey: fileKey))), at: 2)
                _ = try update.step()
            }
        }
        let mask = try database.statement("""
            UPDATE defaults_changes SET value = NULL, omitted = NULL, secret = 1
            WHERE key = ?1 AND secret IS NULL AND removed IS NOT 1
            """)
        try mask.withBorrowedText(key, at: 1) { _ = try mask.step() }
    }

    /// What a seal holds of `value`, as ``SecretSeal`` lays it out: the storage class, `:`, and
    /// the value's bytes. SQL makes it, as the triggers of schemas 12 to 14 did, so entries
    /// sealed then and now carry the same bytes for the same value (a REAL in SQLite's
    /// `printf('%!.17g')`, which reads back to the same double).
    private func sealedMessage(of value: SQLiteValue) throws -> [UInt8]? {
        let statement = try database.statement("SELECT \(Self.messageExpression("?1"))")
        return try statement.withBorrowedValue(value, at: 1) {
            try statement.step() ? statement.optionalBlob(at: 0) : nil
        }
    }

    private static func messageExpression(_ operand: String) -> String {
        "CAST(typeof(\(operand)) || ':' || CAST(CASE WHEN typeof(\(operand)) = 'real' THEN printf('%!.17g', \(operand)) ELSE \(operand) END AS BLOB) AS BLOB)"
    }

    /// When a backup of an older schema was restored under this store (`sqlite3 .restore`):
    /// brings the file to this library's schema, as opening it would have, inside the open
    /// transaction when there is one. The older schema's triggers call functions this library
    /// no longer answers its own way, so none of its writes may run under them.
    func bringForward() throws {
        guard try SchemaVersion.of(database) < .latest else { return }
        if transactionDepth == 0 {
            try Migrator().migrate(database)
        } else {
            try Migrator().migrateInOpenTransaction(database)
        }
    }

    /// Why the file's declaration of `key` may hold a write back (`defaults_held_back`): it is
    /// declared `json`, secret, or both; nil when neither.
    func heldBack(_ key: String) throws -> (json: Bool, secret: Bool)? {
        try heldBack(keyBytes: .text(key))
    }

    /// ``heldBack(_:)`` for a key bound as it is stored (TEXT that may not be UTF-8).
    func heldBack(keyBytes key: SQLiteValue) throws -> (json: Bool, secret: Bool)? {
        let statement = try database.statement("SELECT json, secret FROM defaults_held_back WHERE key = ?1")
        return try statement.withBorrowedValue(key, at: 1) {
            try statement.step() ? (statement.int64(at: 0) == 1, statement.int64(at: 1) == 1) : nil
        }
    }

    /// The refusal of a text that is not JSON for a key declared `json`: the trigger's sentence.
    static func notJSON(_ key: String) -> DefaultsError {
        DefaultsError(.declarationConflict, "declared key \"\(key)\" is json, so a value that is not valid JSON is refused", key: key)
    }

    /// Whether `value` passes the schema's JSON check as this library judges it (``StrictJSON``,
    /// the grammar of `defaults_json_steps`). Only TEXT can be JSON; for any other storage
    /// class the answer is "not held back": a `json` key refuses it by its class, in the
    /// trigger every client meets.
    ///
    /// Asked of every TEXT written, declared or not: the verdict must be in the statement, which
    /// alone knows the declaration at commit time. Text that is not JSON fails at its first bytes;
    /// JSON text (a `Codable` value) is read once, linearly, as SQLite then copies it into a
    /// page anyway (callgrind: a `set` of a String costs 800 instructions less than before
    /// schema 15, the triggers being cheaper; a Codable value was timed only, 1.13× raw SQLite
    /// before and 1.17–1.23× after, on a loaded machine).
    static func isJSON(_ value: SQLiteValue) -> Bool {
        switch value {
        case .text(let text): JSONValidity.isValid(text)
        case .invalidUTF8Text(let bytes): JSONValidity.isValid(bytes)
        default: true
        }
    }
}
