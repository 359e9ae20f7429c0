import Foundation

/// Rows named by their key's exact bytes: the one way to read, change or remove a row whose
/// key another client wrote as bytes that are not valid UTF-8 (no `String` names it; see
/// ``DefaultsStore/keysNotValidUTF8()``). Tools (`prefs`, the console) use these; an app's own
/// keys are always `String`s.
extension DefaultsStore {
    /// The value of the row whose key is exactly `key`'s bytes, or nil when there is none.
    ///
    /// ```swift
    /// for bytes in try store.keysNotValidUTF8() { print(try store.value(forKeyBytes: bytes) as Any) }
    /// ```
    ///
    /// - Throws: ``DefaultsError`` — `.closed`, or a SQLite failure reading the file.
    public func value(forKeyBytes key: Data) throws -> SQLiteValue? {
        try core.withConnection { connection in
            let statement = try connection.database.statement("SELECT value FROM defaults WHERE key = ?1")
            try statement.bind(SQLiteValue.keyText(key), at: 1)
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            let value = statement.value(at: 0)
            return value == .null ? nil : value
        }
    }

    /// Removes the row whose key is exactly `key`'s bytes, as its own transaction. Observers
    /// hear the key as ``entries()`` names it (U+FFFD for each invalid byte), as they do for
    /// ``removeAll()``.
    ///
    /// ```swift
    /// guard try store.removeValue(forKeyBytes: Data([0xFF, 0x6B])) else { print("no such key") }
    /// ```
    ///
    /// - Returns: whether a row was removed (false: there was none).
    /// - Throws: ``DefaultsError`` as ``set(_:for:)`` does; nothing is removed when it throws.
    @discardableResult
    public func removeValue(forKeyBytes key: Data) throws -> Bool {
        try writeExistingRow(key, value: nil)
    }

    /// Stores `value` in the row whose key is exactly `key`'s bytes, when that row exists, as
    /// its own transaction; a row is never created this way (an app names its keys with
    /// `String`s). Observers hear the key as ``removeValue(forKeyBytes:)`` says.
    ///
    /// ```swift
    /// try store.replaceValue(.text("fixed"), forKeyBytes: Data([0xFF, 0x6B]))
    /// ```
    ///
    /// - Returns: whether the row existed (and now holds `value`).
    /// - Throws: ``DefaultsError`` as ``set(_:for:)`` does (`.encodingFailed` for NULL);
    ///   nothing is written when it throws.
    @discardableResult
    public func replaceValue(_ value: SQLiteValue, forKeyBytes key: Data) throws -> Bool {
        guard value != .null else {
            throw DefaultsError(.encodingFailed, "NULL is not a value; remove the key instead")
        }
        return try writeExistingRow(key, value: value)
    }

    /// Updates (or, for nil, deletes) the row by its rowid, recorded like every other write of
    /// this store so that its observers and the change log hear it after the commit.
    private func writeExistingRow(_ key: Data, value: SQLiteValue?) throws -> Bool {
        try core.transaction { connection in
            let find = try connection.database.statement("SELECT rowid FROM defaults WHERE key = ?1")
            try find.bind(SQLiteValue.keyText(key), at: 1)
            let rowid: Int64? = try { defer { find.reset() }; return try find.step() ? find.int64(at: 0) : nil }()
            guard let rowid else { return false }
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
