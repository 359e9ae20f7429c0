#if Prefs
import Foundation
import PrefsFormats

/// The process's arguments as the kernel gave them, checked for bytes that are not UTF-8.
///
/// `CommandLine.arguments` decodes each argument with repair: every invalid byte becomes
/// U+FFFD. Taken as they are, a Latin-1 value would lose its byte, keys `6B FF` and `6B FE`
/// would be one row, and `prefs delete $'k\xff'` would remove the valid key `k` U+FFFD. prefs
/// refuses such an argument instead (one line, exit 64, nothing done): a key whose bytes are
/// not UTF-8 is named by its escaped form, as `prefs list` prints it (`k\x{FF}`), which is
/// valid text.
enum ArgumentBytes {
    /// The refusal for the first argument (after the program's name) that is not valid UTF-8,
    /// nil when every one is.
    static func refusal(_ arguments: [[UInt8]]) -> PrefsError? {
        for (index, bytes) in arguments.enumerated() where String(validating: bytes, as: UTF8.self) == nil {
            let escaped = ValueFormatting.escaped(invalidUTF8: Data(bytes))
            return PrefsError("argument \(index + 1) (\(escaped)) is not valid UTF-8: its bytes cannot be kept as given, so nothing was done (a key with such bytes is named as `prefs list` shows it: \(escaped))",
                              exitCode: 64)
        }
        return nil
    }

    /// The process's arguments after its name, byte for byte.
    static func processArguments() -> [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                             count: strlen(pointer)))
        }
    }
}
#endif
