import CSQLiteDefaults

/// The SQLite library this process runs on: the system's `libsqlite3.so.0`, whatever version the
/// distribution ships (or `LD_LIBRARY_PATH` points at), not the headers it was built with.
public enum SQLiteLibrary {
    /// The oldest SQLite this library supports: 3.34.1, as Debian 11, RHEL 9 and its clones ship
    /// it, the oldest any supported server distribution has. Every SQLite from it to the newest
    /// is built and tested (`Scripts/sqlite-matrix.sh`); nothing older is.
    public static let minimumVersion = "3.34.1"
    /// ``minimumVersion`` as SQLite numbers versions (`major * 1,000,000 + minor * 1,000 + patch`).
    public static let minimumVersionNumber: Int32 = 3_034_001

    /// The running library's version, as `sqlite3_libversion()` gives it (for example `"3.46.1"`).
    public static var version: String { String(cString: sqlite3_libversion()) }
    /// The running library's version number (`sqlite3_libversion_number()`).
    public static var versionNumber: Int32 { sqlite3_libversion_number() }

    /// `3034001` as `"3.34.1"`.
    static func text(of number: Int32) -> String {
        "\(number / 1_000_000).\(number / 1_000 % 1_000).\(number % 1_000)"
    }
}
