extension DefaultsConsole {
    /// The console's security settings and limits.
    ///
    /// ```swift
    /// var configuration = DefaultsConsole.Configuration()
    /// configuration.token = try String(contentsOfFile: "/etc/app/console-token", encoding: .utf8)
    /// configuration.allowedHosts = ["prefs.internal"]
    /// ```
    public struct Configuration: Sendable {
        /// The token every request must carry (`Authorization: Bearer TOKEN`, or the cookie set
        /// by opening the page once with `?token=TOKEN`); nil lets every request through, for a
        /// console on loopback or behind the app's own authentication. Compared in constant time.
        public var token: String?

        /// The host names served, lowercased and without a port (`127.0.0.1`, `localhost`,
        /// `[::1]`); a request whose `Host` names another gets 403, which defeats DNS
        /// rebinding (a rebound page's `Host` is the attacker's name). nil accepts any host:
        /// for a console mounted in an app whose own middleware or proxy checks the host.
        public var allowedHosts: Set<String>?

        /// The largest request body accepted, in bytes; larger ones get 413. 1 MiB by default.
        public var maximumBodySize: Int

        /// How many bytes of events one event-stream client may fall behind before its stream
        /// is ended (it reconnects and reloads); bounds the memory a client that never reads
        /// can cost. 4 MiB by default.
        public var eventBufferLimit: Int

        /// Seconds between keep-alive comments on an idle event stream, which also find
        /// clients that went away. 15 by default.
        public var keepAliveInterval: Duration

        /// A configuration with no token, any host, a 1 MiB body limit.
        public init(token: String? = nil, allowedHosts: Set<String>? = nil, maximumBodySize: Int = 1 << 20,
                    eventBufferLimit: Int = 4 << 20, keepAliveInterval: Duration = .seconds(15)) {
            self.token = token
            self.allowedHosts = allowedHosts
            self.maximumBodySize = maximumBodySize
            self.eventBufferLimit = eventBufferLimit
            self.keepAliveInterval = keepAliveInterval
        }
    }
}
