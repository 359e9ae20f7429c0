import Foundation

/// The committed frames of a `-wal` file, read the way SQLite's recovery reads them
/// (sqlite.org/fileformat2.html, "The Write-Ahead Log"), without SQLite.
///
/// A frame counts only when it carries the header's salts and its running checksum matches;
/// recovery stops at the first frame that does not, and keeps what precedes the last commit
/// frame. Frames after that — a half-written commit, or older frames left behind when the log
/// was restarted without being truncated — are never replayed, so they are ignored here too.
struct WalFile {
    /// One committed frame: the page it holds and, for the last frame of a transaction, the
    /// database's size in pages after that commit.
    struct Frame {
        let pageNumber: UInt32
        let sizeAfterCommit: UInt32
        /// Where the page's bytes start in ``bytes``.
        let pageOffset: Int
    }

    let pageSize: Int
    let frames: [Frame]
    let bytes: [UInt8]

    /// Parses `path`; nil when it has no valid header (SQLite then replays nothing either).
    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    init?(bytes: [UInt8]) {
        guard bytes.count >= 32 else { return nil }
        let magic = Self.bigEndian(bytes, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        let bigEndianChecksum = magic == 0x377F_0683
        let rawPageSize = Int(Self.bigEndian(bytes, 8))
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        var sums = Self.checksum(bytes, 0..<24, bigEndian: bigEndianChecksum, seed: (0, 0))
        guard sums.0 == Self.bigEndian(bytes, 24), sums.1 == Self.bigEndian(bytes, 28) else { return nil }
        let salts = (Self.bigEndian(bytes, 16), Self.bigEndian(bytes, 20))

        var frames: [Frame] = []
        var committed = 0
        var offset = 32
        while offset + 24 + pageSize <= bytes.count {
            guard Self.bigEndian(bytes, offset + 8) == salts.0, Self.bigEndian(bytes, offset + 12) == salts.1 else { break }
            sums = Self.checksum(bytes, offset..<(offset + 8), bigEndian: bigEndianChecksum, seed: sums)
            sums = Self.checksum(bytes, (offset + 24)..<(offset + 24 + pageSize), bigEndian: bigEndianChecksum, seed: sums)
            guard sums.0 == Self.bigEndian(bytes, offset + 16), sums.1 == Self.bigEndian(bytes, offset + 20) else { break }
            let frame = Frame(pageNumber: Self.bigEndian(bytes, offset), sizeAfterCommit: Self.bigEndian(bytes, offset + 4),
                              pageOffset: offset + 24)
            frames.append(frame)
            if frame.sizeAfterCommit != 0 { committed = frames.count }
            offset += 24 + pageSize
        }
        self.pageSize = pageSize
        self.frames = Array(frames.prefix(committed))
        self.bytes = bytes
    }

    /// The bytes of a frame's page.
    func page(_ frame: Frame) -> ArraySlice<UInt8> {
        bytes[frame.pageOffset..<(frame.pageOffset + pageSize)]
    }

    static func bigEndian(_ bytes: some RandomAccessCollection<UInt8>, _ offset: Int) -> UInt32 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        var value: UInt32 = 0
        for index in 0..<4 { value = value << 8 | UInt32(bytes[bytes.index(start, offsetBy: index)]) }
        return value
    }

    /// SQLite's WAL checksum: over 32-bit words, two running sums that feed each other.
    private static func checksum(_ bytes: [UInt8], _ range: Range<Int>, bigEndian: Bool,
                                 seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var index = range.lowerBound
        while index + 8 <= range.upperBound {
            let x0 = word(bytes, index, bigEndian: bigEndian)
            let x1 = word(bytes, index + 4, bigEndian: bigEndian)
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            index += 8
        }
        return (s0, s1)
    }

    private static func word(_ bytes: [UInt8], _ index: Int, bigEndian: Bool) -> UInt32 {
        if bigEndian {
            return UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
        }
        return UInt32(bytes[index + 3]) << 24 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index])
    }
}
