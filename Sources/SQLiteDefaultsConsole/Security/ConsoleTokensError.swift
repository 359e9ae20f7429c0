#if Console
/// Why a tokens file (see ``ConsoleTokens``) was refused, or a change to it could not be made:
/// one line, naming the file and, for a line that does not parse, its number.
///
/// ```swift
/// do {
///     let tokens = try ConsoleTokens.load(from: "/etc/app/console-tokens")
/// } catch let error as ConsoleTokensError where error.kind == .permissive {
///     print(error)  // the tokens file '/etc/app/console-tokens' can be read by others (mode 0644): chmod 600 it
/// }
/// ```
public struct ConsoleTokensError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for a `catch` to match.
    public enum Kind: Sendable, Hashable {
        /// The file does not exist.
        case missing
        /// The file cannot be read or written (the system's reason is in the message).
        case unreadable
        /// The file's group or others may read or write it (mode & 0o077 is not 0).
        case permissive
        /// The file belongs to another user.
        case notOwned
        /// A line is not a token: not JSON, a field missing or of the wrong shape.
        case malformed(line: Int)
        /// A line names a role that is not `read`, `write` or `admin`.
        case unknownRole(line: Int)
        /// Two lines give one name.
        case duplicateName(line: Int)
        /// Two lines hold the same salted hash: two names with one token.
        case duplicateToken(line: Int)
        /// A name that is empty or holds a control character, or a prefix that is empty or
        /// holds one.
        case invalidName
        /// `add` of a name the file already holds.
        case nameTaken
        /// `remove` of a name the file does not hold.
        case noSuchName
        /// A file that holds no token, where one is needed (`prefs serve --tokens`).
        case empty
    }

    /// What went wrong.
    public let kind: Kind
    /// The refusal in words, one line.
    public let message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// ``message``.
    public var description: String { message }
}
#endif
