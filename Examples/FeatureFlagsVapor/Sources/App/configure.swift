import SQLiteDefaults
import SQLiteDefaultsVapor
import Vapor

/// The store, the routes, the console and the `prefs` command.
///
/// The store is `FLAGS_DB` (a path), else the standard store of the application `feature-flags`
/// (`~/.config/feature-flags/defaults.sqlite`). With `ADMIN_TOKEN` set, the console is mounted at
/// `/admin/prefs/` for requests with `Authorization: Bearer $ADMIN_TOKEN`, its writes recorded
/// with the actor `admin`.
func configure(_ app: Application) async throws {
    if let path = Environment.get("FLAGS_DB"), !path.isEmpty {
        try app.defaults.use(path: path)
    } else {
        try app.defaults.use(name: "feature-flags")
    }
    routes(app)

    if let token = Environment.get("ADMIN_TOKEN"), !token.isEmpty {
        let admin = app.grouped("admin", "prefs").grouped(AdminAuthenticator(token: token), Admin.guardMiddleware())
        try app.defaults.console.mount(on: admin) { req in req.auth.get(Admin.self)?.name }
    }

    // `swift run App prefs list|read|write|watch|history|…` on this app's store.
    app.asyncCommands.use(DefaultsCommand(), as: "prefs")
}
