#if Console
import PrefsFormats

/// Who a token is, against every token a console's configuration names: the single
/// ``DefaultsConsole/Configuration/token`` (an admin named `token`), the fixed
/// ``DefaultsConsole/Configuration/tokens`` and the followed
/// ``DefaultsConsole/Configuration/tokensFile``. Knows no web framework.
struct ConsoleAuthenticator: Sendable {
    /// The configured tokens, fixed for the console's life.
    let fixed: [ConsoleTokens.Entry]
    /// The tokens file, read again when it changes.
    let file: ConsoleTokensFile?

    /// What a token, or a session's credential, comes to.
    enum Outcome: Sendable, Equatable {
        /// A known token: who it is.
        case accepted(ConsoleCredential)
        /// No token matches (or the session's token is gone): 401.
        case refused(String)
        /// The tokens file cannot be used now (malformed, readable by others, missing), so its
        /// tokens are refused until it is fixed: 403 with the problem.
        case unavailable(String)
    }

    /// The name ``DefaultsConsole/Configuration/token``'s principal goes by.
    static let singleTokenName = "token"

    init(configuration: DefaultsConsole.Configuration) {
        var fixed = configuration.token.map { [ConsoleTokens.Entry(name: Self.singleTokenName, role: .admin, token: $0)] } ?? []
        fixed += configuration.tokens?.entries ?? []
        self.fixed = fixed
        self.file = configuration.tokensFile
    }

    /// Whether any token is configured: without one, every request is the owner's.
    var isRequired: Bool { !fixed.isEmpty || file != nil }

    /// Who `token` is. Every configured entry is hashed and compared, in constant time.
    func authenticate(_ token: String) -> Outcome {
        var found: ConsoleTokens.Entry?
        for entry in fixed where entry.matches(token) && found == nil { found = entry }
        if let found { return .accepted(ConsoleCredential(entry: found, source: .configured)) }
        guard let file else { return .refused(Self.wrongToken) }
        switch file.current() {
        case .success(let tokens):
            return tokens.authenticate(token).map { .accepted(ConsoleCredential(entry: $0, source: .file)) } ?? .refused(Self.wrongToken)
        case .failure(let error):
            return .unavailable(Self.unavailable(error))
        }
    }

    /// Whether a session opened by `credential` still stands: its entry is still configured,
    /// unchanged (a token removed from the tokens file, or given another role, ends it).
    func check(_ credential: ConsoleCredential) -> Outcome {
        switch credential.source {
        case .configured:
            return .accepted(credential)
        case .file:
            guard let file else { return .refused(Self.sessionEnded) }
            switch file.current() {
            case .success(let tokens):
                return tokens.entries.contains(credential.entry) ? .accepted(credential) : .refused(Self.sessionEnded)
            case .failure(let error):
                return .unavailable(Self.unavailable(error))
            }
        }
    }

    static let wrongToken = "the token is not right"
    static let sessionEnded = "the token this session was opened with is no longer valid: open the page again with ?token=TOKEN"

    static func unavailable(_ error: ConsoleTokensError) -> String {
        error.message + "; no token from it is accepted until it is fixed"
    }
}
#endif
