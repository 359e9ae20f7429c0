#if Prefs
import Foundation
import PrefsFormats

/// An error the tool itself reports (as opposed to the engine's `DefaultsError` or a usage
/// error from the argument parser). `PrefsCommand.main()` prints it as one line,
/// `prefs: <message>`, on standard error and exits with ``exitCode``.
struct PrefsError: Error, CustomStringConvertible {
    /// One sentence, no trailing period, no newline.
    let message: String
    /// The process exit status; never 0.
    let exitCode: Int32

    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }

    /// `read` or `delete` of a key that has no value: exit status 1, naming the key.
    static func missingKey(_ key: String) -> PrefsError {
        PrefsError("no value for key \(ValueFormatting.quoted(key))")
    }

    /// `export` or `list --json` of a database with a key that is not valid UTF-8: a JSON key
    /// is a string, so it would be written as another key. Names the key's bytes in hex.
    static func keyNotInJSON(_ bytes: Data) -> PrefsError {
        let hex = bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
        return PrefsError("a key is not valid UTF-8 (its bytes are \(hex)); JSON cannot hold it unchanged, so nothing was printed")
    }
}
#endif
