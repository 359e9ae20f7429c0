#if Console
import Hummingbird
import SQLiteDefaults

/// A web console for a `DefaultsStore`: a live page for operators, a JSON API
/// and an event stream, as routes of a Hummingbird router.
///
/// `prefs serve` runs one on its own; an app that already runs Hummingbird mounts the same
/// console under a path prefix, behind its own authentication:
///
/// ```swift
/// let console = DefaultsConsole(store: store)
/// let admin = router.group("admin/prefs").add(middleware: MyAdminAuthentication())
/// console.addRoutes(to: admin)
/// // the page is at /admin/prefs/, the API at /admin/prefs/api/keys
/// ```
///
/// Routes, relative to where it is mounted: `GET /` (the page; a path without its trailing
/// slash is redirected to it), `GET /console.js`, `GET /console.css`, `GET /api/keys`,
/// `PUT /api/keys/{key}`, `DELETE /api/keys/{key}` (or `api/keys?key=KEY`, `api/keys?keyHex=HEX`),
/// `GET /api/history`, `GET /api/events`, `GET /api/session` (who the request is),
/// `GET /api/keys/{key}/secret` (or `api/secret?key=KEY`: a secret's value, for an admin). See the
/// SQLiteDefaultsConsole documentation for the JSON and the security rules.
public struct DefaultsConsole: Sendable {
    /// The store the console shows and edits.
    public let store: DefaultsStore
    /// Its security settings and limits.
    public let configuration: Configuration
    let catalog: ConsoleCatalog
    let hub: EventHub
    let sessions: ConsoleSessions
    let authenticator: ConsoleAuthenticator

    /// A console for `store`. It starts observing the store at once (for the event stream)
    /// and stops when the last copy of it is released.
    ///
    /// ```swift
    /// let console = DefaultsConsole(store: store, configuration: .init(token: "s3cret"))
    /// ```
    public init(store: DefaultsStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        self.catalog = ConsoleCatalog(store: store)
        self.hub = EventHub(store: store, perClientLimit: configuration.eventBufferLimit)
        self.sessions = ConsoleSessions(lifetime: configuration.sessionLifetime)
        self.authenticator = ConsoleAuthenticator(configuration: configuration)
    }

    /// Adds the console's routes, with its security middleware in front of them, to `router`
    /// (a `Router` or a `RouterGroup`) under `path`.
    ///
    /// ```swift
    /// console.addRoutes(to: router, atPath: "admin/prefs")
    /// ```
    ///
    /// Never throws: requests the console refuses get 4xx responses (see ``Configuration``).
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>, atPath path: String = "") {
        let group = router.group(RouterPath(path)).add(middleware: ConsoleSecurity<Context>(configuration: configuration, sessions: sessions, authenticator: authenticator))
        group.get("") { request, _ in self.page(request) }
        group.get("console.js") { _, _ in ConsoleResponses.asset(ConsoleAssets.script, contentType: "text/javascript; charset=utf-8") }
        group.get("console.css") { _, _ in ConsoleResponses.asset(ConsoleAssets.style, contentType: "text/css; charset=utf-8") }
        group.get("api/keys") { _, _ in self.listKeys() }
        group.get("api/session") { _, _ in self.session() }
        group.put("api/keys/:key") { request, context in try await self.putKey(request, context: context) }
        group.put("api/keys") { request, context in try await self.putKey(request, context: context) }
        group.delete("api/keys/:key") { request, context in self.deleteKey(request, context: context) }
        group.delete("api/keys") { request, context in self.deleteKey(request, context: context) }
        group.get("api/history") { request, _ in self.history(request) }
        group.get("api/secret") { request, context in self.revealSecret(request, context: context) }
        group.get("api/keys/:key/secret") { request, context in self.revealSecret(request, context: context) }
        group.get("api/events") { request, _ in self.events(request) }
    }

    /// Ends every open event stream, so a server can stop without waiting for them; streams
    /// also end on their own when the server shuts down gracefully.
    public func closeEventStreams() {
        hub.finishAll()
    }

    /// How many event-stream clients are connected now.
    public var eventStreamClientCount: Int { hub.clientCount }
}
#endif
