import SQLiteDefaults
import SQLiteDefaultsVapor
import Vapor

/// The settings the routes read; all optional, each with its default.
enum Flag {
    static let beta = DefaultsKey<Bool>("features.beta", default: false)
    static let greeting = DefaultsKey<String>("greeting", default: "Hello")
    static let items = DefaultsKey<Int>("limits.items", default: 3)
}

/// What `GET /` answers.
struct Flags: Content {
    var beta: Bool
    var greeting: String
    var maxItems: Int
}

/// The app's routes. `value(for:)` reads the file itself, so a `prefs write` that returned is in
/// the very next response; the subscript (`req.defaults[Flag.beta]`, the cache) would see it
/// within milliseconds.
func routes(_ app: Application) {
    app.get { req in
        Flags(beta: try req.defaults.value(for: Flag.beta), greeting: try req.defaults.value(for: Flag.greeting),
              maxItems: try req.defaults.value(for: Flag.items))
    }
    app.get("items") { req -> String in
        (1...max(1, try req.defaults.value(for: Flag.items))).map { "item \($0)" }.joined(separator: "\n") + "\n"
    }
    app.get("beta") { req -> String in
        guard try req.defaults.value(for: Flag.beta) else { throw Abort(.notFound, reason: "beta is off") }
        return "welcome to the beta\n"
    }
}
