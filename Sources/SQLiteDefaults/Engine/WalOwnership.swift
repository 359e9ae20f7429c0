import Foundation

/// Recognises a `-wal` file that does not belong to the database file beside it, and moves it
/// aside instead of letting SQLite replay it.
///
/// A WAL names no database: SQLite replays whatever valid `-wal` sits next to the file. When a
/// process crashed (its `-wal` left behind) and an older copy of the same database is moved
/// over the file — a restore with `mv` — the log's pages, written over a newer state, would be
/// laid over the old one: reads return values the backup never had, and the file fails
/// `PRAGMA integrity_check`. A log nobody holds open (an orphan: only a crash leaves one with
/// frames) is therefore checked before it is replayed, in three ways, cheapest first:
///
/// 1. **Lineage**, from the bytes alone (``lineageMismatch(realPath:)``): SQLite stamps the
///    database's first page with a change counter that commits writing that page raise, and
///    records each commit's size in pages. Page 1 of the file must be no older than the one
///    the log started from (the counter of the log's first copy of page 1, less one); when
///    the log never wrote page 1, every commit must leave the database at the size the
///    file's header gives.
/// 2. **Identity**, through the log (``identityMismatch(_:)``): migration 0003 gives every
///    database a random identity, written once; the identity seen through the log must be the
///    one the main file holds.
/// 3. **Integrity** (``damagedOnlyByLog(_:)``): the file seen through the log must pass
///    `PRAGMA integrity_check` whenever the file alone does.
///
/// A log that fails is renamed `<database>-wal.set-aside-<time>` (kept, never deleted), the
/// failure is reported as ``DefaultsError/Code/walSetAside``, and the database opens as the
/// file holds it. A log that other connections hold open is live and never touched.
enum WalOwnership {
    /// Whether `realPath` has a `-wal` with frames that no connection holds: no store of this
    /// process has the file open, and no process — this one included — holds a lock on the
    /// database or its `-shm` (every SQLite connection in WAL mode keeps a read lock on the
    /// `-shm`'s dead-man-switch byte while it is open).
    ///
    /// The locks are read from `/proc/locks` rather than probed with `fcntl`: probing needs a
    /// descriptor of the `-shm`, and closing a descriptor drops every POSIX lock the process
    /// holds on that file — SQLite's own, should another store of this process be opening it
    /// at that moment. Where `/proc/locks` cannot be read, no log is taken for an orphan.
    static func isOrphaned(realPath: String) -> Bool {
        var info = stat()
        guard stat(realPath + "-wal", &info) == 0, info.st_size > 32 else { return false }  // no frames
        if ConnectionBudget.shared.hasConnection(toRealPath: realPath) { return false }
        guard let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        let held = Set(locks.split(separator: "\n").compactMap { line -> Substring? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count >= 6 ? fields[5] : nil  // MAJOR:MINOR:INODE, device numbers in hex
        })
        for file in [realPath, realPath + "-shm"] {
            guard stat(file, &info) == 0 else { continue }
            let device = UInt64(info.st_dev)
            let major = (device >> 8) & 0xFFF | (device >> 32) & ~UInt64(0xFFF)
            let minor = device & 0xFF | (device >> 12) & ~UInt64(0xFF)
            let name = String(major, radix: 16).leftPadded(to: 2) + ":" + String(minor, radix: 16).leftPadded(to: 2)
                + ":" + String(info.st_ino)
            if held.contains(Substring(name)) { return false }
        }
        return true
    }

    /// Why the orphaned `-wal` cannot have been written over the file beside it, or nil.
    static func lineageMismatch(realPath: String) -> String? {
        guard let wal = WalFile(path: realPath + "-wal"), !wal.frames.isEmpty else { return nil }
        let main = prefix(of: realPath, count: wal.pageSize)
        let pageOnes = wal.frames.filter { $0.pageNumber == 1 }
        let counterOffset = 24
        guard main.count >= 100 else {
            // An empty file: only a log that created the database (its first page-1 copy is
            // the first version of page 1) belongs to it.
            guard let first = pageOnes.first, WalFile.bigEndian(wal.page(first), counterOffset) == 1 else {
                return "the database file is empty, and the log holds changes to an existing database"
            }
            return nil
        }
        let rawPageSize = Int(main[16]) << 8 | Int(main[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize == wal.pageSize else {
            return "the log's pages are \(wal.pageSize) bytes and the file's are \(pageSize)"
        }
        let counter = WalFile.bigEndian(main, counterOffset)
        if let first = pageOnes.first {
            // The counter a commit writes is one more than the writer last read, and a writer
            // does not read back its own page 1, so it may lag: the log's first copy says the
            // file it was written over held at least version `logBase`. Checkpoints only move
            // the file forward. A file below that version is older than the log's base.
            let logBase = WalFile.bigEndian(wal.page(first), counterOffset) &- 1
            if counter >= logBase { return nil }
            return "the log was written over version \(logBase) or later of the file's first page, and the file holds the older version \(counter)"
        }
        // The log never wrote page 1, so the database never changed size while it was written:
        // every commit leaves it at the size in the file's header (valid when the header's
        // version-valid-for number matches its change counter, else the file's length).
        var info = stat()
        let fileSize = stat(realPath, &info) == 0 ? Int(info.st_size) : 0
        let pages = WalFile.bigEndian(main, 92) == counter ? WalFile.bigEndian(main, 28) : UInt32(clamping: fileSize / pageSize)
        if let commit = wal.frames.first(where: { $0.sizeAfterCommit != 0 && $0.sizeAfterCommit != pages }) {
            return "the log's commits leave the database at \(commit.sizeAfterCommit) pages, and the file holds \(pages)"
        }
        return nil
    }

    /// Why the identity seen through the log differs from the one in the main file, or nil.
    static func identityMismatch(_ database: Database) -> String? {
        var info = stat()
        guard stat(database.path + "-wal", &info) == 0, info.st_size > 32 else { return nil }  // no frames: nothing to compare
        guard let throughWal = database.firstText("SELECT id FROM defaults_identity LIMIT 1"),
              let inMainFile = mainFileIdentity(database.path),
              throughWal != inMainFile
        else { return nil }
        return "it belongs to another database (its identity is \(throughWal), the file's is \(inMainFile))"
    }

    /// Why the database seen through the log is damaged while the file alone is not, or nil.
    ///
    /// `integrity_check` reports a page it could not read as a finding ("unable to get the
    /// page. error code=266"), not as a failure: that is the disk failing, not the log
    /// damaging the file, and a log set aside for it would lose a crashed writer's commits.
    /// - Throws: ``DefaultsError/Code/ioError`` when a page could not be read.
    static func damagedOnlyByLog(_ database: Database) throws -> String? {
        guard let throughWal = database.firstText("PRAGMA integrity_check(1)"), throughWal != "ok" else { return nil }
        if let code = unreadablePageCode(throughWal) {
            throw DefaultsError.sqlite(code, operation: "checking the write-ahead log beside the database (\(throughWal))",
                                       path: database.path, message: throughWal)
        }
        guard let alone = Database.firstTextInMainFileOnly(database.path, "PRAGMA integrity_check(1)"), alone == "ok" else {
            return nil  // damaged with or without the log: not the log's doing; left as it is
        }
        return "replaying it damages the database (\(throughWal))"
    }

    /// The result code of an `integrity_check` finding that is a page SQLite could not read
    /// (an I/O error or no memory, never damage), or nil.
    ///
    /// A b-tree page it could not read says so with its code ("unable to get the page. error
    /// code=266"); a page of the free list, or of the pointer map, without one ("failed to get
    /// page 17", "Failed to read ptrmap key=5"): SQLite checked the page number first, so only a
    /// failed read is left, reported as SQLITE_IOERR. (A file with free pages, which a dropped
    /// trigger or a deleted key leaves, met the second form; the log was set aside for it.) The
    /// three phrasings are SQLite's own, the same in 3.34.1, 3.40.1, 3.46.1 and 3.53.4 (read from
    /// each library's strings when this was written); a version that rewords them makes a failed
    /// read look like damage again, which the I/O-error suite would show.
    static func unreadablePageCode(_ finding: String) -> Int32? {
        if finding.contains("failed to get page ") || finding.contains("Failed to read ptrmap key=") {
            return SQLiteResultKind.ioErrorCode
        }
        guard let marker = finding.range(of: "error code=") else { return nil }
        guard let code = Int32(finding[marker.upperBound...].prefix { $0.isNumber }) else { return nil }
        switch SQLiteResultKind(code: code) {
        case .ioError, .full, .cantOpen, .permission, .noMemory: return code
        default: return nil
        }
    }

    /// The error a store reports after moving a log aside.
    static func setAsideReport(realPath: String, reason: String, keptAt: String) -> DefaultsError {
        DefaultsError(.walSetAside,
                      "the write-ahead log beside \(realPath) did not belong to it: \(reason). It was not replayed; it was moved to \(keptAt) and the database was opened as the file holds it",
                      path: realPath)
    }

    /// Renames the `-wal` to `-wal.set-aside-<UTC time>` beside it; returns the new path.
    /// - Throws: ``DefaultsError/Code/cannotOpen`` when it cannot be renamed.
    static func setAside(realPath: String) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = realPath + "-wal.set-aside-" + formatter.string(from: Date())
        var target = base
        var attempt = 1
        // link(2) then unlink(2): unlike rename(2) it never replaces a file already there.
        while link(realPath + "-wal", target) != 0 {
            guard errno == EEXIST, attempt < 100 else {
                throw DefaultsError(.cannotOpen, "cannot move the stray write-ahead log \(realPath)-wal aside: \(String(cString: strerror(errno)))",
                                    path: realPath)
            }
            attempt += 1
            target = base + "-\(attempt)"
        }
        unlink(realPath + "-wal")
        return target
    }

    // MARK: Reading the main file alone

    private static func prefix(of path: String, count: Int) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
    }

    /// The identity in the main file alone, nil when it has none yet or cannot be read.
    private static func mainFileIdentity(_ path: String) -> String? {
        Database.firstTextInMainFileOnly(path, "SELECT id FROM defaults_identity LIMIT 1")
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
