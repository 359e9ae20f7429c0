import Foundation

/// The device and inode of a file, to tell the file we opened from one put in its place.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// What a database's files look like from outside — inode, size and modification time of the
/// file and of its `-wal` — so a suspended store can tell, without opening the database, that
/// nobody committed (every commit in WAL mode writes the `-wal`).
struct FileStamp: Equatable, Sendable {
    private let database: [Int64]
    private let wal: [Int64]

    init(path: String) {
        database = Self.stamp(path)
        wal = Self.stamp(path + "-wal")
    }

    private static func stamp(_ path: String) -> [Int64] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)]
    }
}
