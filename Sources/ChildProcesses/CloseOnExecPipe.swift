import Foundation

/// A pipe for a child's standard stream whose two ends are close-on-exec from the start.
///
/// A pipe end without the flag leaks into any child another thread starts meanwhile (by a
/// spawner that does not close every descriptor, such as Foundation's `Process`), and whoever
/// waits for the end of that pipe's stream then waits as long as that unrelated child lives.
/// `dup2` into the child's 0/1/2 (``ChildProcess``) clears the flag there, so the child the pipe
/// is meant for still gets it.
public final class CloseOnExecPipe: Sendable {
    /// The end to read from.
    public let reading: FileHandle
    /// The end to write to.
    public let writing: FileHandle

    /// - Throws: `POSIXError` when the system has no descriptor or memory left for a pipe.
    public init() throws {
        // `pipe2` is declared by glibc only for _GNU_SOURCE, which Swift's Glibc module does
        // not define: it is looked up at run time (glibc has had it since 2.9).
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else {  // RTLD_DEFAULT
            throw POSIXError(.ENOSYS)
        }
        var ends: [Int32] = [-1, -1]
        guard unsafeBitCast(symbol, to: Pipe2.self)(&ends, O_CLOEXEC) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        reading = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        writing = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    }
}
