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

/// The app's routes. They read the file itself (``DefaultsStore/fresh(_:)``), so a `prefs write`
/// that returned is in the very next response; the subscript (`req.defaults[Flag.beta]`, the
/// store's cache) sees it within milliseconds, which is what most routes want.
func routes(_ app: Application) {
    app.get { req in
        Flags(beta: try req.defaults.fresh(Flag.beta), greeting: try req.defaults.fresh(Flag.greeting),
              maxItems: try req.defaults.fresh(Flag.items))
    }
    app.get("items") { req -> String in
        (1...max(1, try req.defaults.fresh(Flag.items))).map { "item \($0)" }.joined(separator: "\n") + "\n"
    }
    app.get("beta") { req -> String in
        guard try req.defaults.fresh(Flag.beta) else { throw Abort(.notFound, reason: "beta is off") }
        return "welcome to the beta\n"
    }
}

extension DefaultsStore {
    /// The key's value read from the database in a transaction, past the cache: another
    /// process's commit is seen as soon as it returned.
    func fresh<Value>(_ key: DefaultsKey<Value>) throws -> Value {
        try transaction { try $0.value(for: key) }
    }
}
