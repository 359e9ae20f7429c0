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
        try core.value(forKeyBytes: key)
    }

    /// Removes the row whose key is exactly `key`'s bytes, as its own transaction. Observers
    /// hear the key as ``entries()-5wpon`` names it (U+FFFD for each invalid byte), as they do for
    /// ``removeAll()-4dyol``.
    ///
    /// ```swift
    /// guard try store.removeValue(forKeyBytes: Data([0xFF, 0x6B])) else { print("no such key") }
    /// ```
    ///
    /// - Returns: whether a row was removed (false: there was none).
    /// - Throws: ``DefaultsError`` as ``set(_:for:)-qkes`` does; nothing is removed when it throws.
    @discardableResult
    public func removeValue(forKeyBytes key: Data) throws -> Bool {
        try core.writeExistingRow(key, value: nil)
    }

    /// Stores `value` in the row whose key is exactly `key`'s bytes, when that row exists, as
    /// its own transaction; a row is never created this way (an app names its keys with
    /// `String`s). Observers hear the key as ``removeValue(forKeyBytes:)-79d1a`` says.
    ///
    /// ```swift
    /// try store.replaceValue(.text("fixed"), forKeyBytes: Data([0xFF, 0x6B]))
    /// ```
    ///
    /// - Returns: whether the row existed (and now holds `value`).
    /// - Throws: ``DefaultsError`` as ``set(_:for:)-qkes`` does (`.encodingFailed` for NULL);
    ///   nothing is written when it throws.
    @discardableResult
    public func replaceValue(_ value: SQLiteValue, forKeyBytes key: Data) throws -> Bool {
        guard value != .null else {
            throw DefaultsError(.encodingFailed, "NULL is not a value; remove the key instead")
        }
        return try core.writeExistingRow(key, value: value)
    }
}
