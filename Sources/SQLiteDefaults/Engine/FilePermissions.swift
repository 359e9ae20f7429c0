import Foundation

/// Refuses database files that other users could have written.
///
/// In a directory others can write to (a shared `/tmp`, a group directory), another user can
/// create the database before its owner does — mode 0666, their name on it — and then read or
/// change whatever the owner later stores, secrets included. So the database, its `-wal` and
/// its `-shm` must be writable by their owner alone, and owned by this user or root (a file of
/// root's is root's to protect; root itself may open any user's file only when allowed).
enum FilePermissions {
    /// - Throws: ``DefaultsError/Code/unsafePermissions`` naming the first file that fails,
    ///   with its mode and owner.
    static func check(realPath: String) throws {
        let me = geteuid()
        for file in [realPath, realPath + "-wal", realPath + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }  // a missing -wal or -shm is created 0600
            let mode = info.st_mode & 0o7777
            let writableByOthers = mode & 0o022 != 0
            let foreignOwner = info.st_uid != me && info.st_uid != 0
            guard writableByOthers || foreignOwner else { continue }
            let why = writableByOthers
                ? "it is writable by \(mode & 0o002 != 0 ? "everyone" : "its group") (mode \(octal(mode)))"
                : "it belongs to user \(info.st_uid), not to this user (\(me)) or root (mode \(octal(mode)))"
            throw DefaultsError(
                .unsafePermissions,
                "refusing the database file \(file): \(why), so another user could read or change what is stored; make it yours with mode 0600 (chown, chmod 600), or allow it with Configuration.allowsUnsafePermissions",
                path: realPath)
        }
    }

    private static func octal(_ mode: mode_t) -> String {
        "0" + String(mode, radix: 8)
    }
}
