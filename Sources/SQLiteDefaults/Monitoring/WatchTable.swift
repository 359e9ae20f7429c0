/// Which files and directories the monitor watches, and which registrations each watch
/// concerns. It turns a ``FileEventSource``'s events into looks for registrations; *when* they
/// look is the ``MonitorScheduler``'s business.
///
/// Every commit in WAL mode appends to `<db>-wal`, so a one-shot watch on that file tells when
/// to look; a watch on the database's directory (one per directory, shared by the files in it)
/// sees the `-wal` created or deleted and the database file itself deleted or replaced. Two
/// stores of this process on one file share the kernel's watches.
struct WatchTable {
    /// What the table knows of one registered database.
    private struct Entry {
        let directory: String
        let name: String
        var walName: String { name + "-wal" }
        var directoryWatch: Int32?
        /// The armed one-shot watch on the `-wal`; nil while none is armed.
        var walWatch: Int32?
        /// The `-wal` was missing when last armed: not tried again until the directory watch
        /// sees it created (saves a failing system call per safety poll of an idle file).
        var walMissing = false
    }

    private var entries: [UInt64: Entry] = [:]
    /// Directory watches by path, and the files of each (by database file name).
    private var directoryWatches: [String: Int32] = [:]
    private var directoryFiles: [Int32: [String: [UInt64]]] = [:]
    /// Armed one-shot `-wal` watches and the files waiting on each.
    private var walWatches: [Int32: [UInt64]] = [:]

    /// Adds a file (watched by nothing yet).
    mutating func add(_ id: UInt64, directory: String, name: String) {
        entries[id] = Entry(directory: directory, name: name)
    }

    /// Watches the file's directory (one watch per directory, shared).
    mutating func watchDirectory(of id: UInt64, source: any FileEventSource) -> Result<Void, WatchRefusal> {
        guard let entry = entries[id] else { return .success(()) }
        let watch: Int32
        if let existing = directoryWatches[entry.directory] {
            watch = existing
        } else {
            switch source.addWatch(entry.directory, for: .directory) {
            case .success(let added):
                watch = added
                directoryWatches[entry.directory] = added
            case .failure(let refusal):
                return .failure(refusal)
            }
        }
        entries[id]?.directoryWatch = watch
        directoryFiles[watch, default: [:]][entry.name, default: []].append(id)
        return .success(())
    }

    /// Arms the one-shot watch on the file's `-wal` (a missing `-wal` is armed when the
    /// directory watch sees it created). Returns a refusal other than "no such file": the file
    /// cannot be watched, and should be polled from now on.
    mutating func armWalWatch(_ id: UInt64, source: any FileEventSource) -> WatchRefusal? {
        guard var entry = entries[id], entry.walWatch == nil, !entry.walMissing else { return nil }
        var refused: WatchRefusal?
        switch source.addWatch(entry.directory + "/" + entry.walName, for: .nextWrite) {
        case .success(let watch):
            entry.walWatch = watch
            if walWatches[watch, default: []].contains(id) == false { walWatches[watch, default: []].append(id) }
        case .failure(let refusal) where refusal.isMissingFile:
            entry.walMissing = true
        case .failure(let refusal):
            refused = WatchRefusal(isMissingFile: false,
                                   description: "cannot watch \(entry.directory)/\(entry.walName): \(refusal.description)")
        }
        entries[id] = entry
        return refused
    }

    /// Forgets a file, removing the watches no other file needs.
    mutating func remove(_ id: UInt64, source: any FileEventSource) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        if let watch = entry.walWatch { dropWalWatch(watch, for: id, source: source) }
        if let watch = entry.directoryWatch {
            directoryFiles[watch]?[entry.name]?.removeAll { $0 == id }
            if directoryFiles[watch]?[entry.name]?.isEmpty == true { directoryFiles[watch]?[entry.name] = nil }
            if directoryFiles[watch]?.isEmpty == true {
                directoryFiles[watch] = nil
                directoryWatches = directoryWatches.filter { $0.value != watch }
                source.removeWatch(watch)
            }
        }
    }

    /// Tells, in the order of `events`, which files must look (`look`) and which lost their
    /// directory watch and can only be polled from now on (`lost`, before that file's look).
    /// Closures rather than a returned list: a wake-up allocates nothing for them.
    mutating func apply(_ events: [FileEvent], source: any FileEventSource,
                        lost: (UInt64) -> Void, look: (UInt64, MonitorEvent) -> Void) {
        for event in events {
            if event.kinds.contains(.overflow) {
                // Events were lost: every file looks.
                for id in entries.keys { look(id, .databaseFileEvent) }
                continue
            }
            if let ids = walWatches[event.watch] {
                // The one-shot fired (a write), or the watch went away with its file: either way
                // it is no longer armed.
                walWatches[event.watch] = nil
                for id in ids where entries[id]?.walWatch == event.watch {
                    entries[id]?.walWatch = nil
                    if event.kinds.contains(.written) { look(id, .filesChanged) }
                }
                continue
            }
            guard let byName = directoryFiles[event.watch] else { continue }
            if event.kinds.contains(.watchRemoved) {
                // The directory itself is gone: its files can only be polled now.
                directoryFiles[event.watch] = nil
                directoryWatches = directoryWatches.filter { $0.value != event.watch }
                for id in byName.values.joined() {
                    entries[id]?.directoryWatch = nil
                    lost(id)
                    look(id, .databaseFileEvent)
                }
                continue
            }
            let name = event.name
            if let ids = byName[name] {
                let structural = !event.kinds.isDisjoint(with: .structural)
                for id in ids { look(id, structural ? .databaseFileEvent : .filesChanged) }
            } else if name.hasSuffix("-wal"), let ids = byName[String(name.dropLast(4))] {
                for id in ids {
                    entries[id]?.walMissing = false
                    // A new -wal is a new inode: an armed watch (if any) is on the old one.
                    if !event.kinds.isDisjoint(with: [.created, .movedIn]), let old = entries[id]?.walWatch {
                        entries[id]?.walWatch = nil
                        dropWalWatch(old, for: id, source: source)
                    }
                    look(id, .filesChanged)
                }
            } else if name.hasSuffix("-journal"), let ids = byName[String(name.dropLast(8))] {
                for id in ids { look(id, .filesChanged) }
            }
        }
    }

    private mutating func dropWalWatch(_ watch: Int32, for id: UInt64, source: any FileEventSource) {
        walWatches[watch]?.removeAll { $0 == id }
        if walWatches[watch]?.isEmpty == true {
            walWatches[watch] = nil
            source.removeWatch(watch)
        }
    }
}
