/// Why a piece of text is not what a `prefs` command expects: a command-line value that does
/// not parse as its `--type`, or an export file whose JSON is valid but whose content is not
/// (a repeated key, an unknown `$` tag, a number out of range…).
///
/// The CLI prints ``message`` as one line, `prefs: <message>`, and exits with status 1.
///
/// ```swift
/// do { _ = try ValueType.int.parse("lots") }
/// catch { print(error.message) }  // 'lots' is not a valid int value: expected a whole number …
/// ```
package struct FormatError: Error, CustomStringConvertible, Equatable {
    /// One sentence, no trailing period, no newline.
    package let message: String

    /// An error that says `message`.
    package init(_ message: String) {
        self.message = message
    }

    /// The ``message``.
    package var description: String { message }

    /// A command-line value that does not parse as its `--type`, and why.
    package static func invalidValue(_ value: String, type: ValueType, _ reason: String) -> FormatError {
        FormatError("\(ValueFormatting.quoted(value)) is not a valid \(type.rawValue) value: \(reason)")
    }
}
