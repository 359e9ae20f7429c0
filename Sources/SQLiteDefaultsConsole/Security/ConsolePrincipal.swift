#if Console
/// Who a console request comes from, and what it may do: a token's name, role and key
/// prefixes, or the owner (no token configured: full access).
///
/// The console's security middleware sets ``current`` around the routes it lets through, so a
/// handler (the console's own, or an app's) reads it without knowing the web framework:
///
/// ```swift
/// if let principal = ConsolePrincipal.current, !principal.mayWrite(key: "feature.beta") {
///     // answer 403
/// }
/// ```
public struct ConsolePrincipal: Sendable, Hashable {
    /// The token's name (a person or a service); nil for the owner.
    public let name: String?
    /// What it may do.
    public let role: ConsoleRole
    /// For ``ConsoleRole/write``: the key prefixes it may change; empty means every key.
    public let prefixes: [String]

    /// A principal named `name` with `role`, limited (for ``ConsoleRole/write``) to keys that
    /// start with one of `prefixes`.
    public init(name: String?, role: ConsoleRole, prefixes: [String] = []) {
        self.name = name
        self.role = role
        self.prefixes = prefixes
    }

    /// The owner of a console that has no token: no name, full access.
    public static let owner = ConsolePrincipal(name: nil, role: .admin)

    /// The principal of the request being handled, set by the console's security middleware
    /// around the routes (nil outside a console request). An app that authenticates its users
    /// itself may set it around a console without a token, and the console then applies that
    /// principal's role.
    @TaskLocal public static var current: ConsolePrincipal?

    /// Whether this principal may change (`PUT`) or remove (`DELETE`) the key named `key`:
    /// an admin any key, a writer a key whose UTF-8 name starts with one of its ``prefixes``
    /// byte for byte (any key when it has none), a reader none.
    ///
    /// A prefix is a plain prefix of the name, not a path: `feature` matches `feature.beta`
    /// and `featureless`; `feature.` matches only the first.
    public func mayWrite(key: String) -> Bool {
        mayWrite(keyBytes: Array(key.utf8))
    }

    /// ``mayWrite(key:)`` for a key given as its exact bytes (a key that is not UTF-8).
    public func mayWrite(keyBytes: [UInt8]) -> Bool {
        switch role {
        case .read: return false
        case .admin: return true
        case .write: return prefixes.isEmpty || prefixes.contains { keyBytes.starts(with: $0.utf8) }
        }
    }

    /// Whether this principal may read a secret key's value (reveal it): an admin only.
    var mayReadSecrets: Bool { role == .admin }

    /// Whether this principal is shown the history digests of the secret key `key`: an admin,
    /// and a principal that may write the key. The digest is keyed by the key, so it compares
    /// values of that one key only: a writer learns whether a value it could write anyway came
    /// back, and nothing of any other key (the cross-key oracle a value-only digest was). A
    /// reader, and a writer outside its prefixes, get no digest.
    func seesDigest(ofKeyBytes key: [UInt8]) -> Bool {
        mayReadSecrets || mayWrite(keyBytes: key)
    }

    /// Whether this principal may send a request with `method` at all (before its key is
    /// known): a reader only `GET` and `HEAD`.
    public func mayUse(method: String) -> Bool {
        role != .read || ["GET", "HEAD"].contains(method.uppercased())
    }
}
#endif
