#if Prefs
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Text written to a file descriptor as it is made, a buffer at a time: how `export` and
/// `list` print a million keys holding one buffer, not the whole output.
final class OutputSink {
    /// How many bytes are gathered before one `write(2)`.
    static let bufferSize = 64 << 10

    private let descriptor: Int32
    private let failure: (Int32) -> PrefsError
    private var buffer: [UInt8] = []

    /// A sink writing to `descriptor`; `failure` words a failed write from its errno.
    init(descriptor: Int32, failure: @escaping (Int32) -> PrefsError) {
        self.descriptor = descriptor
        self.failure = failure
        buffer.reserveCapacity(Self.bufferSize)
    }

    /// Standard output, a failed write saying so.
    static func standardOutput() -> OutputSink {
        OutputSink(descriptor: STDOUT_FILENO) { PrefsError("cannot write to standard output: \(String(cString: strerror($0)))") }
    }

    /// Appends `text`, writing the buffer out once it is full.
    /// - Throws: ``PrefsError`` when the write fails.
    func write(_ text: String) throws(PrefsError) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends `bytes` as they are, writing the buffer out once it is full.
    /// - Throws: ``PrefsError`` when the write fails.
    func write(bytes: [UInt8]) throws(PrefsError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Writes out what the buffer holds.
    /// - Throws: ``PrefsError`` when the write fails.
    func flush() throws(PrefsError) {
        guard !buffer.isEmpty else { return }
        if let error = Console.write(buffer, to: descriptor) { throw failure(error) }
        buffer.removeAll(keepingCapacity: true)
    }
}
#endif
