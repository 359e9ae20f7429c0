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
}
