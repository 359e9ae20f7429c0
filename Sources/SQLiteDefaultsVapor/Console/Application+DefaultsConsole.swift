#if Vapor
import SQLiteDefaults
import SQLiteDefaultsConsole
import Vapor

extension Application.Defaults {
    /// The console over the application's store, to mount in the app's routes.
    ///
    /// ```swift
    /// try app.defaults.console.mount(on: app.grouped("admin", "prefs").grouped(MyAuthenticator()))
    /// ```
    public var console: Console { Console(defaults: self) }

    /// Mounts the SQLiteDefaults console (the same page, JSON API, event stream and security
    /// rules as `prefs serve` and the Hummingbird mount) in a Vapor app.
    public struct Console: Sendable {
        let defaults: Application.Defaults

        /// Adds the console's routes to `routes`: the page at the builder's path (`GET /admin/prefs/`
        /// for `app.grouped("admin", "prefs")`), the API below it (`…/api/keys`, `…/api/events`, …).
        /// The routes run behind the builder's middleware, so the app authenticates the request
        /// before the console sees it; the console then applies its own rules (`DefaultsConsole`).
        ///
        /// Who the request is: `actor` names the app's authenticated user (its name is the
        /// history's `actor` of every write made through the console). The app has already
        /// decided who may reach these routes, so such a user is an `admin` of the console; an
        /// app that wants finer rights says so with ``mount(on:configuration:principal:)``.
        /// Without `actor`, writes carry no actor, as the owner's do under `prefs serve`.
        ///
        /// ```swift
        /// let admin = app.grouped("admin", "prefs").grouped(UserSessionAuthenticator(), User.guardMiddleware())
        /// try app.defaults.console.mount(on: admin) { req in req.auth.get(User.self)?.email }
        /// ```
        ///
        /// The configuration's tokens, hosts and limits apply as they do in `prefs serve`; its
        /// default (no token, any host) suits a console behind the app's own authentication.
        ///
        /// - Returns: the console, for `DefaultsConsole.eventStreamClientCount` and the like;
        ///   its event streams end when the application shuts down.
        /// - Throws: ``DefaultsVaporError`` `.notInUse` before `app.defaults.use(…)`.
        @discardableResult
        public func mount(on routes: any RoutesBuilder, configuration: DefaultsConsole.Configuration = .init(),
                          actor: (@Sendable (Request) -> String?)? = nil) throws -> DefaultsConsole {
            try mount(on: routes, configuration: configuration) { request in
                ConsolePrincipal(name: actor?(request), role: .admin)
            }
        }

        /// Adds the console's routes to `routes`, as ``mount(on:configuration:actor:)``, with each
        /// request's rights given by `principal`: its name is the history's `actor`, its role and
        /// prefixes limit what it may do (a `read` principal may only look, a `write` one change
        /// only keys under its prefixes). nil lets the request through as the owner (admin, no
        /// name). With a token configured, the token's holder is the principal instead.
        ///
        /// ```swift
        /// try app.defaults.console.mount(on: admin) { req in
        ///     req.auth.get(User.self).map { ConsolePrincipal(name: $0.email, role: $0.isAdmin ? .admin : .read) }
        /// }
        /// ```
        ///
        /// - Throws: ``DefaultsVaporError`` `.notInUse` before `app.defaults.use(…)`.
        @discardableResult
        public func mount(on routes: any RoutesBuilder, configuration: DefaultsConsole.Configuration = .init(),
                          principal: @escaping @Sendable (Request) -> ConsolePrincipal?) throws -> DefaultsConsole {
            let store = try defaults.requireStore()
            let console = DefaultsConsole(store: store, configuration: configuration)
            defaults.state.held.withLock { $0.consoles.append(console) }
            console.addRoutes(to: routes, principal: principal)
            return console
        }
    }
}

extension DefaultsConsole {
    /// The Vapor adapter: the console's routes (`ConsoleRoute`, the table the Hummingbird
    /// adapter registers too) on `routes`, each turning Vapor's request into a
    /// `ConsoleRequest` and the console's answer back, with `ConsolePrincipal.current` set
    /// to what `principal` says (else left as it is). `package`: apps call
    /// ``Vapor/Application/Defaults/Console/mount(on:configuration:principal:)``.
    package func addRoutes(to routes: any RoutesBuilder, principal: @escaping @Sendable (Request) -> ConsolePrincipal?) {
        for route in ConsoleRoute.allCases {
            let path = route.segments.map { $0.hasPrefix(":") ? PathComponent.parameter(String($0.dropFirst())) : .constant($0) }
            // A write's body is read by the console itself, up to its own limit (Vapor's
            // default collects at most 16 KiB and answers 413 before the console sees it).
            let body: HTTPBodyStreamStrategy = route.method == .put ? .stream : .collect
            routes.on(HTTPMethod(rawValue: route.method.rawValue), path, body: body) { request async -> Response in
                let consoleRequest = ConsoleRequest(vapor: request, route: route)
                let answer = await ConsolePrincipal.$current.withValue(principal(request) ?? ConsolePrincipal.current) {
                    await self.respond(to: consoleRequest, route: route)
                }
                return answer.vapor
            }
        }
    }
}
#endif
