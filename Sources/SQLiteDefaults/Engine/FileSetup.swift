import Foundation

/// Makes a database path ready for SQLite: parent directories exist, the path is not a
/// directory, and a new file is created with mode 0600 before SQLite opens it (SQLite then
/// gives `-wal` and `-shm` the same mode; changing the process umask instead would race
/// with other threads).
enum FileSetup {
    static func prepare(path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw DefaultsError(.isDirectory, "the path \(path) is a directory, not a database file", path: path)
            }
            return
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if let blocker = firstNonDirectoryAncestor(of: path) {
            throw DefaultsError(.cannotCreateDirectory,
                                "cannot create the directory \(parent) for the database: \(blocker) is a file, not a directory", path: path)
        }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw DefaultsError(.cannotCreateDirectory, "cannot create the directory \(parent) for the database: \(describe(error))", path: path)
        }
        let descriptor = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            let reason = String(cString: strerror(errno))
            throw DefaultsError(errno == EROFS || errno == EACCES ? .readOnly : .cannotOpen,
                                "cannot create the database file \(path): \(reason)", path: path)
        } else if stat(path, &info) != 0 {
            // EEXIST for a path that names nothing: a symbolic link whose target is missing.
            // Creating a file through a dangling link is how a link planted in a shared
            // directory makes another user's program write where it chooses, so it is refused.
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            throw DefaultsError(.cannotOpen,
                                "the database path \(path) is a symbolic link to \(target), which does not exist; create the database there, or open it by its own path",
                                path: path)
        }
    }

    /// For a store that must not create anything: the file must exist and not be a directory.
    /// - Throws: `.cannotOpen` when it is missing, `.isDirectory` when it is a directory.
    static func requireExisting(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DefaultsError(.cannotOpen, "cannot open the database \(path): \(String(cString: strerror(errno)))", path: path)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw DefaultsError(.isDirectory, "the path \(path) is a directory, not a database file", path: path)
        }
    }

    /// The first existing ancestor directory of `path` that is not a directory (a regular
    /// file where a directory should be), or nil.
    private static func firstNonDirectoryAncestor(of path: String) -> String? {
        var ancestor = URL(fileURLWithPath: path).deletingLastPathComponent()
        var chain: [String] = []
        while ancestor.path != "/" && !ancestor.path.isEmpty {
            chain.append(ancestor.path)
            ancestor = ancestor.deletingLastPathComponent()
        }
        for candidate in chain.reversed() {
            var info = stat()
            guard stat(candidate, &info) == 0 else { return nil }  // missing from here on: creatable
            if (info.st_mode & S_IFMT) != S_IFDIR { return candidate }
        }
        return nil
    }

    /// The file `path` names, with every symbolic link resolved (SQLite itself puts `-wal`
    /// and `-shm` beside the link's target); `path` itself when it cannot be resolved.
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` made absolute against the current directory. SQLite reads a name that starts
    /// with "file:" as a URI (system SQLite is often built with SQLITE_USE_URI=1, Debian's is)
    /// and ":memory:" as a private in-memory database; an absolute path is always a file name.
    static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
