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
enum Console {
    /// Prints `line` and a newline on standard output.
    static func out(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Prints `text` on standard output as it is, with no newline added.
    static func outRaw(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Prints `line` and a newline on standard error.
    static func err(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Whether standard error is a terminal (a person is watching, not a script).
    static var standardErrorIsTerminal: Bool {
        isatty(STDERR_FILENO) == 1
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = systemWrite(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // closed or broken pipe: nobody is reading, nothing else to do
                }
                pointer += written
                remaining -= written
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, pointer, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, pointer, count)
        #else
        Darwin.write(descriptor, pointer, count)
        #endif
    }
}
