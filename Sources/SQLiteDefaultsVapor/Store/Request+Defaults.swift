#if Vapor
import SQLiteDefaults
import Vapor

extension Request {
    /// The application's store (`app.defaults.store`), from a request.
    ///
    /// ```swift
    /// app.get("theme") { req in req.defaults[.theme].rawValue }
    /// ```
    ///
    /// Write with `await` in a route: the write runs on the store's own thread, never on an
    /// event loop or the cooperative pool, so a write waiting for another process's lock freezes
    /// no other route (reads of one key come from the cache and need no `await`):
    ///
    /// ```swift
    /// app.put("theme", ":value") { req async throws -> HTTPStatus in
    ///     try await req.defaults.set(req.parameters.get("value") ?? "light", for: .theme)
    ///     return .noContent
    /// }
    /// ```
    ///
    /// As ``Vapor/Application/Defaults/store``, it requires `app.defaults.use(…)`; a route that
    /// may run without it calls `req.application.defaults.requireStore()`.
    public var defaults: DefaultsStore { application.defaults.store }
}
#endif
