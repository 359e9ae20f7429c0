import CSQLiteDefaults
import Foundation

/// Recognises a `-wal` file that belongs to another database.
///
/// A WAL names no database: SQLite replays whatever valid `-wal` sits next to the file, so a
/// log restored from another backup, copied along with the wrong file, or left behind by a
/// renamed database would silently replace this database's rows with another's, and the next
/// checkpoint would write them into the file for good. Migration 0003 gives every database a
/// random identity, written once; when a `-wal` with frames is present at open, the identity
/// seen through it must be the one the main file holds.
enum WalOwnership {
    /// - Throws: ``DefaultsError/Code/corrupt`` when the `-wal` shows another database's identity.
    static func check(_ database: Database) throws {
        var info = stat()
        guard stat(database.path + "-wal", &info) == 0, info.st_size > 32 else { return }  // no frames to replay
        guard let throughWal = firstText(database.handle, "SELECT id FROM defaults_identity LIMIT 1"),
              let inMainFile = mainFileIdentity(database.path),
              throughWal != inMainFile
        else { return }
        throw DefaultsError(
            .corrupt,
            "the write-ahead log \(database.path)-wal belongs to another database (its identity is \(throughWal), the file's is \(inMainFile)); both were left untouched: move the -wal away to open the database as it was last checkpointed",
            path: database.path)
    }

    /// The identity in the main file alone: a read-only `immutable` connection ignores the
    /// -wal and -shm and takes no locks, so it writes nothing and waits for no one. `nil` when
    /// the file has none yet (its creation is still in the -wal) or cannot be read.
    private static func mainFileIdentity(_ path: String) -> String? {
        let escaped = path.replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        var handle: OpaquePointer?
        defer { if let handle { sqlite3_close_v2(handle) } }
        guard sqlite3_open_v2("file://" + escaped + "?immutable=1", &handle,
                              SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let handle
        else { return nil }
        return firstText(handle, "SELECT id FROM defaults_identity LIMIT 1")
    }

    private static func firstText(_ handle: OpaquePointer, _ sql: String) -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }
}
