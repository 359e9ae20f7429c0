#if Prefs
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's only way to print.
///
/// Every call goes straight to `write(2)`, unbuffered, so each line reaches a pipe the moment
/// it is printed (`prefs watch | grep …` sees changes live), and output from several threads
/// never interleaves inside a line. Swift's `print` buffers a pipe until exit, and the C
/// `stdout` global it would take to change that is not concurrency-safe in Swift 6.
///
/// A write to standard output that fails (a full disk, `/dev/full`, a closed pipe) throws:
/// output that did not arrive must not end in exit status 0. With nothing buffered, a
/// returned call means the bytes were handed to the system: there is nothing left to flush.
enum Console {
    /// Prints `line` and a newline on standard output.
    /// - Throws: ``PrefsError`` naming what the system said when the write fails.
    static func out(_ line: String) throws(PrefsError) {
        try outRaw(line + "\n")
    }

    /// Prints `text` on standard output as it is, with no newline added.
    /// - Throws: ``PrefsError`` naming what the system said when the write fails.
    static func outRaw(_ text: String) throws(PrefsError) {
        if let failure = write(Array(text.utf8), to: STDOUT_FILENO) {
            throw PrefsError("cannot write to standard output: \(String(cString: strerror(failure)))")
        }
    }

    /// Prints `line` and a newline on standard error. A failure is ignored: standard error is
    /// where failures are reported, so there is nowhere left to report this one.
    static func err(_ line: String) {
        _ = write(Array((line + "\n").utf8), to: STDERR_FILENO)
    }

    /// Whether standard error is a terminal (a person is watching, not a script).
    static var standardErrorIsTerminal: Bool {
        isatty(STDERR_FILENO) == 1
    }

    /// Writes every byte, retrying after signals and short writes.
    /// - Returns: `nil` when all was written, else the `errno` of the failed write.
    static func write(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            guard var pointer = buffer.baseAddress else { return nil }
            var remaining = buffer.count
            while remaining > 0 {
                let written = systemWrite(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                pointer += written
                remaining -= written
            }
            return nil
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, pointer, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, pointer, count)
        #else
        Darwin.write(descriptor, pointer, count)
        #endif
    }
}
#endif
