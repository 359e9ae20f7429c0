#if Console
/// What a console token may do.
///
/// ```swift
/// let role = ConsoleRole(rawValue: "write")  // .write; nil for a word that is not a role
/// ```
public enum ConsoleRole: String, Sendable, Hashable, CaseIterable {
    /// The page, every `GET` of the API (`/api/keys`, `/api/history`, `/api/session`) and the
    /// event stream; any other request gets 403.
    case read
    /// What `read` may do, and `PUT`/`DELETE` of the keys under the token's prefixes (every key
    /// when it has none); a write to any other key gets 403 and writes nothing.
    case write
    /// Everything.
    case admin
}
#endif
