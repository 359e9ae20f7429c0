#if Console
import SQLiteDefaults

/// A web console for a `DefaultsStore`: a live page for operators, a JSON API
/// and an event stream, as routes of a Hummingbird router or (with SQLiteDefaultsVapor) of a
/// Vapor app. One console, two adapters: the requests are handled by code that knows no web
/// framework, so both mounts serve the same page, API, event stream and security rules.
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
/// `GET /api/keys/{key}/secret` (or `api/secret?key=KEY`: a secret's value, for an admin),
/// `GET /api/openapi.json` (the OpenAPI 3 document of all of them). See the
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
    let security: ConsoleSecurity

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
        let catalog = self.catalog
        self.hub = EventHub(store: store, perClientLimit: configuration.eventBufferLimit,
                            perTokenLimit: configuration.eventStreamsPerToken,
                            declarations: { try catalog.declarations() })
        self.sessions = ConsoleSessions(lifetime: configuration.sessionLifetime)
        self.authenticator = ConsoleAuthenticator(configuration: configuration)
        self.security = ConsoleSecurity(configuration: configuration, sessions: sessions, authenticator: authenticator)
    }

    /// The answer to `request` on `route`: the security rules (``ConsoleSecurity``) first,
    /// then the route, with ``ConsolePrincipal/current`` set to the request's principal. Every
    /// adapter (Hummingbird's ``addRoutes(to:atPath:)``, Vapor's mount) calls this and nothing
    /// else, so both serve one console.
    package func respond(to request: ConsoleRequest, route: ConsoleRoute) async -> ConsoleResponse {
        await security.handle(request) { request in
            switch route {
            case .page: page(request)
            case .script: ConsoleResponses.asset(ConsoleAssets.script, contentType: "text/javascript; charset=utf-8")
            case .style: ConsoleResponses.asset(ConsoleAssets.style, contentType: "text/css; charset=utf-8")
            case .keys: await listKeys(request)
            case .session: session()
            case .putKey, .putKeyByQuery: try await putKey(request)
            case .deleteKey, .deleteKeyByQuery: await onStoreThread { deleteKey(request) }
            case .history: await onStoreThread { history(request) }
            case .secret, .secretByQuery: await onStoreThread { revealSecret(request) }
            case .events: await events(request)
            case .openAPI: openAPIDocument(request)
            }
        }
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
