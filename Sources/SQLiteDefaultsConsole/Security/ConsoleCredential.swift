#if Console
/// The token a request or a session was authenticated by: its entry (name, role, prefixes,
/// salted hash) and where it came from, so that a session can be checked again against the
/// tokens as they are now.
struct ConsoleCredential: Sendable, Hashable {
    /// Where a token is configured.
    enum Source: Sendable, Hashable {
        /// ``DefaultsConsole/Configuration/token`` or ``DefaultsConsole/Configuration/tokens``:
        /// fixed for the console's life.
        case configured
        /// ``DefaultsConsole/Configuration/tokensFile``: valid while the file holds the entry.
        case file
    }

    let entry: ConsoleTokens.Entry
    let source: Source

    var principal: ConsolePrincipal { entry.principal }

    /// For a long request (the event stream): whether the token it was authenticated by still
    /// stands (still in the tokens file, its session still open). Set by the security
    /// middleware around the routes; nil when the console has no token.
    @TaskLocal static var stillValid: Validity?

    /// Asks again whether a credential stands (`stillValid()`). A struct rather than a bare
    /// optional closure: Swift 6.3's IR generation crashes (signal 11) emitting the metadata
    /// accessor of a task-local `(@Sendable () -> Bool)?` under
    /// `-disable-concrete-type-metadata-mangled-name-accessors`, which Scripts/prefs-release.sh
    /// builds with.
    struct Validity: Sendable {
        let check: @Sendable () -> Bool

        func callAsFunction() -> Bool { check() }
    }
}
#endif
