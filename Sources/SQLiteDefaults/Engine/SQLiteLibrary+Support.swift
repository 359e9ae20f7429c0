// The refusal of a too-old SQLite is a ``DefaultsError``, which Connection/ never names: the
// library's version is read there, judged here, before a store touches its file.
extension SQLiteLibrary {
    /// Throws when the running SQLite is older than ``minimumVersion``.
    ///
    /// Checked before a store touches its file, so a refused open creates and writes nothing.
    /// - Parameter versionNumber: the version to judge; the running library's by default (tests
    ///   pass an older number to see the refusal without an older library).
    /// - Throws: ``DefaultsError`` with code ``DefaultsError/Code/unsupportedSQLite``, naming the
    ///   version found and the one needed.
    public static func checkSupported(versionNumber: Int32 = SQLiteLibrary.versionNumber) throws {
        guard versionNumber < minimumVersionNumber else { return }
        let found = versionNumber == Self.versionNumber ? version : Self.text(of: versionNumber)
        throw DefaultsError(
            .unsupportedSQLite,
            "SQLite \(found) is too old: SQLiteDefaults needs SQLite \(minimumVersion) or newer (install a newer libsqlite3, or point LD_LIBRARY_PATH at one)")
    }
}
