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
    /// As ``Vapor/Application/Defaults/store``, it requires `app.defaults.use(…)`; a route that
    /// may run without it calls `req.application.defaults.requireStore()`.
    public var defaults: DefaultsStore { application.defaults.store }
}
#endif
