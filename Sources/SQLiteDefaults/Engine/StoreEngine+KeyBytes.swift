import Foundation

/// Rows named by their key's exact bytes (``DefaultsStore/value(forKeyBytes:)`` and its
/// siblings): the SQL of the public face's byte-keyed methods.
extension StoreEngine {
    /// The value of the row whose key is exactly `key`'s bytes, or nil when there is none.
    func value(forKeyBytes key: Data) throws -> SQLiteValue? {
        try withConnection { connection in
            let statement = try connection.database.statement("SELECT value FROM defaults WHERE key = ?1")
            try statement.bind(SQLiteValue.keyText(key), at: 1)
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            let value = statement.value(at: 0)
            return value == .null ? nil : value
        }
    }

    /// Updates (or, for nil, deletes) the row by its rowid, recorded like every other write of
    /// this store so that its observers and the change log hear it after the commit.
    func writeExistingRow(_ key: Data, value: SQLiteValue?) throws -> Bool {
        try transaction { connection in
            let find = try connection.database.statement("SELECT rowid FROM defaults WHERE key = ?1")
            try find.bind(SQLiteValue.keyText(key), at: 1)
            let rowid: Int64? = try { defer { find.reset() }; return try find.step() ? find.int64(at: 0) : nil }()
            guard let rowid else { return false }
            // The checks `write` makes through its upsert (Migrations/0015), made here before the
            // update: the file's declaration of these exact bytes, read in this transaction (on
            // a backup of an older schema restored under the store, once it is brought forward).
            try connection.bringForward()
            let held = try value == nil ? nil : connection.heldBack(keyBytes: SQLiteValue.keyText(key))
            if let value, held?.json == true, !StoreConnection.isJSON(value) {
                throw StoreConnection.notJSON(String(decoding: key, as: UTF8.self))
            }
            let statement = try connection.database.statement(
                value == nil ? "DELETE FROM defaults WHERE rowid = ?1" : "UPDATE defaults SET value = ?2 WHERE rowid = ?1")
            try statement.bind(rowid, at: 1)
            if let value { try statement.bind(value, at: 2) }
            defer { statement.reset() }
            // The recorder files the hook's report under the key's lossy name: the only `String`
            // observers can be told, as `removeAll()` does for such rows. A valid key may be
            // spelled exactly so; then the cache and that key's observers keep its own value
            // (heard again, unchanged) rather than this row's.
            let lossy = String(decoding: key, as: UTF8.self)
            connection.recorder.begin(key: HashedKey(lossy), value: try connection.read(lossy) ?? value)
            do {
                _ = try statement.step()
                connection.recorder.statementSucceeded()
                if let value, held?.secret == true, let entries = connection.recorder.lastStatementSequences {
                    try connection.seal(entries, of: value)
                }
            } catch {
                connection.recorder.statementFailed()
                throw error
            }
            return true
        }
    }
}

extension SQLiteValue {
    /// The key's bytes bound as TEXT, as SQLite stores keys (a valid key as `.text`).
    fileprivate static func keyText(_ bytes: Data) -> SQLiteValue {
        String(validating: bytes, as: UTF8.self).map(SQLiteValue.text) ?? .invalidUTF8Text(bytes)
    }
}
