#if Console
extension DefaultsConsole {
    /// The console's security settings and limits.
    ///
    /// ```swift
    /// var configuration = DefaultsConsole.Configuration()
    /// configuration.token = try String(contentsOfFile: "/etc/app/console-token", encoding: .utf8)
    /// configuration.allowedHosts = ["prefs.internal"]
    /// ```
    public struct Configuration: Sendable {
        /// The token every request must carry (`Authorization: Bearer TOKEN`, or the session
        /// cookie that opening the page once with `?token=TOKEN` sets: a random identifier
        /// kept by this console, never the token); nil lets every request through, for a
        /// console on loopback or behind the app's own authentication. Compared in constant time.
        /// Its holder is an ``ConsoleRole/admin`` named `token`; it may be given with
        /// ``tokens`` and ``tokensFile``, and any of them lets a request in.
        public var token: String?

        /// People and services with their own tokens, roles and key prefixes (see
        /// ``ConsoleTokens``), fixed for the console's life; nil for none.
        ///
        /// ```swift
        /// configuration.tokens = try ConsoleTokens.load(from: "/etc/app/console-tokens")
        /// ```
        public var tokens: ConsoleTokens?

        /// A tokens file the console follows: read again when it changes, so added tokens work
        /// and removed ones (and their sessions) stop without a restart; while it is malformed
        /// or readable by others, none of its tokens is accepted (403 naming the problem). nil
        /// for none.
        public var tokensFile: ConsoleTokensFile?

        /// The host names served, without a port (`127.0.0.1`, `localhost`, `[::1]`); a
        /// request whose `Host` names another gets 403, which defeats DNS rebinding (a rebound
        /// page's `Host` is the attacker's name). Names compare without case, and addresses as
        /// addresses: `[0:0:0:0:0:0:0:1]` is `[::1]`, `[::ffff:127.0.0.1]` is `127.0.0.1`.
        /// nil accepts any host: for a console mounted in an app whose own middleware or proxy
        /// checks the host.
        public var allowedHosts: Set<String>?

        /// Serve only connections whose other end is a socket of the user running this process
        /// (Linux lists the owner of every TCP socket in `/proc/net/tcp{,6}`); any other user's
        /// request gets 403. For a console on loopback without a token: the machine's other
        /// users cannot read or change a store they could not open themselves. Needs a request
        /// server that knows the remote address (a Hummingbird `RemoteAddressRequestContext`, as
        /// `prefs serve` uses, or Vapor); with any other context, or off Linux, every request
        /// gets 403.
        /// False by default.
        public var onlyOwnerConnections: Bool

        /// How long a session that `?token=` opens lasts; the page asks for the token again
        /// after it. 12 hours by default.
        public var sessionLifetime: Duration

        /// The largest request body accepted, in bytes; larger ones get 413. 1 MiB by default.
        public var maximumBodySize: Int

        /// How many bytes of events one event-stream client may fall behind before its stream
        /// is ended (it reconnects and reloads); bounds the memory a client that never reads
        /// can cost. 4 MiB by default.
        public var eventBufferLimit: Int

        /// Seconds between keep-alive comments on an idle event stream, which also find
        /// clients that went away. 15 by default.
        public var keepAliveInterval: Duration

        /// How many event streams one token (by name) may hold open at once; the next is
        /// answered 429 until one closes. 32 by default: a person's tabs and devices, with room
        /// to spare. Event streams stay open for hours, and the server holds a bounded number
        /// of connections (`prefs serve`: 256), so without it one token holder could take every
        /// connection and leave none for anyone else. The owner of a console without tokens is
        /// not limited (there is no one else to protect).
        public var eventStreamsPerToken: Int

        /// Where each reveal of a secret (`GET api/keys/{key}/secret` by an admin) is recorded:
        /// called with one line naming the principal and the key — never the value. nil (the
        /// default) logs the line through the request's logger at `notice` level;
        /// `prefs serve` writes it to its standard error.
        ///
        /// ```swift
        /// configuration.auditLog = { line in auditLogger.notice("\(line)") }
        /// ```
        public var auditLog: (@Sendable (String) -> Void)?

        /// A configuration with no token, any host, any user, a 1 MiB body limit.
        public init(token: String? = nil, tokens: ConsoleTokens? = nil, tokensFile: ConsoleTokensFile? = nil, allowedHosts: Set<String>? = nil, onlyOwnerConnections: Bool = false,
                    maximumBodySize: Int = 1 << 20, eventBufferLimit: Int = 4 << 20, keepAliveInterval: Duration = .seconds(15),
                    sessionLifetime: Duration = .seconds(12 * 3600)) {
            self.token = token
            self.tokens = tokens
            self.tokensFile = tokensFile
            self.allowedHosts = allowedHosts
            self.onlyOwnerConnections = onlyOwnerConnections
            self.sessionLifetime = sessionLifetime
            self.maximumBodySize = maximumBodySize
            self.eventBufferLimit = eventBufferLimit
            self.keepAliveInterval = keepAliveInterval
            self.eventStreamsPerToken = 32
            self.auditLog = nil
        }
    }
}
#endif
