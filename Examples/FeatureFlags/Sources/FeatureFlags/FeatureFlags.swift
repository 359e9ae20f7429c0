import Configuration
import Foundation
import Hummingbird
import Logging
import Metrics
import PostgresNIO
import Prometheus
import ServiceLifecycle
import SQLiteDefaults
import SQLiteDefaultsConfiguration
import SQLiteDefaultsConsole
import SQLiteDefaultsFlags
import SQLiteDefaultsPostgres
import SQLiteDefaultsServiceLifecycle

/// An HTTP server whose answers depend on settings in a SQLiteDefaults file:
///
/// ```
/// swift run FeatureFlags --db /tmp/flags.sqlite --port 8080
/// curl http://127.0.0.1:8080/            # {"beta":false,"greeting":"Hello","maxItems":3}
/// prefs --db /tmp/flags.sqlite write features.beta 1 --type bool
/// curl http://127.0.0.1:8080/            # {"beta":true,...}: the next response, no restart
/// ```
///
/// Settings (all optional): `features.beta` (bool), `greeting` (string), `limits.items` (int).
///
/// A percentage rollout: `GET /checkout?user=ID&email=ADDRESS` resolves the flagd flag
/// `new-checkout` (``DefaultsFlags``) for that user. `rollout.json` beside this package turns it
/// on for staff (an `@example.com` address) and for 10 % of everyone else, each user always in
/// the same bucket (flagd's `fractional` over the flag key and the user's id):
///
/// ```
/// prefs --db /tmp/flags.sqlite flags load Examples/FeatureFlags/rollout.json
/// curl 'http://127.0.0.1:8080/checkout?user=u-17'   # {"newCheckout":false,"reason":"TARGETING_MATCH",…}
/// ```
///
/// Raising the share is editing the file's weights and loading it again (one change of one key,
/// with its history), or editing the flag in the console: the next request sees it.
/// With `ADMIN_TOKEN` set, the SQLiteDefaults console is mounted at `/admin/prefs/` for
/// requests that carry `Authorization: Bearer $ADMIN_TOKEN`.
/// The listening port comes from `--port`, else the `HTTP_PORT` environment variable, else the
/// store's `http.port`, else 8080; port 0 picks a free one. The server prints
/// `listening on http://HOST:PORT` once it accepts connections.
///
/// With `--postgres postgres://USER@HOST:PORT/DATABASE` the store joins a fleet
/// (`DefaultsPostgresSync`, table `defaults_fleet`). `GET /metrics` shows the store's metrics
/// (`sqlitedefaults_commits_total`, …) and the sync's (`sqlitedefaults_fleet_…`) in Prometheus's text format (swift-prometheus bootstrapped
/// as the process's swift-metrics backend).
@main
struct FeatureFlags {
    static func main() async throws {
        let arguments = Arguments(CommandLine.arguments.dropFirst())
        let logger = Logger(label: "FeatureFlags")
        // Before anything makes a metric: every metric of the process goes to this registry.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let store = try DefaultsStore(path: arguments.database)

        // Environment variables first (HTTP_PORT overrides http.port), then the store.
        let config = ConfigReader(providers: [EnvironmentVariablesProvider(), DefaultsConfigProvider(store: store)])
        let host = arguments.host ?? config.string(forKey: "http.host", default: "127.0.0.1")
        let port = arguments.port ?? config.int(forKey: "http.port", default: 8080)

        let flags = DefaultsFlags(store: store)
        let router = Router()
        // `fetch` reads the database itself, so a `prefs write` that returned is in the very
        // next response; `config.bool(forKey:)` (the cache) would see it within a millisecond.
        router.get("/") { _, _ -> Flags in
            try await Flags(config: config)
        }
        router.get("/items") { _, _ -> String in
            let limit = try await config.fetchInt(forKey: "limits.items", default: 3)
            return (1...max(1, limit)).map { "item \($0)" }.joined(separator: "\n") + "\n"
        }
        router.get("/checkout") { request, _ -> Checkout in
            guard let user = request.uri.queryParameters["user"].map(String.init), !user.isEmpty else {
                throw HTTPError(.badRequest, message: "user=ID is required\n")
            }
            var attributes: [String: FlagValue] = [:]
            if let email = request.uri.queryParameters["email"] { attributes["email"] = .string(String(email)) }
            // From the parsed rule the flag's key holds (parsed again only when the key changes).
            let resolution = flags.boolean("new-checkout", default: false,
                                           context: FlagEvaluationContext(targetingKey: user, attributes: attributes))
            return Checkout(user: user, newCheckout: resolution.value, variant: resolution.variant,
                            reason: resolution.reason.rawValue, errorCode: resolution.errorCode?.rawValue)
        }
        router.get("/beta") { _, _ -> String in
            guard try await config.fetchBool(forKey: "features.beta", default: false) else {
                throw HTTPError(.notFound, message: "beta is off\n")
            }
            return "welcome to the beta\n"
        }

        // The operators' console at /admin/prefs/, behind this app's own authentication (a
        // bearer token from ADMIN_TOKEN); without a token configured it is not mounted at all.
        if let adminToken = config.string(forKey: "admin.token"), !adminToken.isEmpty {
            let admin = router.group("admin/prefs").add(middleware: AdminAuthentication(token: adminToken))
            DefaultsConsole(store: store).addRoutes(to: admin)
        }

        router.get("/metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }

        // The fleet, when asked: a PostgreSQL client and the sync, both services of the app.
        var fleet: [any Service] = []
        if let postgres = arguments.postgres {
            let url = try PostgresPassword.resolve(for: PostgresURL(postgres), warn: { logger.warning("\($0)") })
            let client = PostgresClient(configuration: url.configuration)
            fleet = [client, KeepRunning(DefaultsPostgresSync(store: store, client: client, logger: logger), logger: logger)]
        }

        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "FeatureFlags"),
            // The store service comes first in the group, so it is shut down last: the server
            // drains its requests while the store is still open, then the store closes.
            services: [DefaultsStoreService(store: store, logger: logger)] + fleet,
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                // Unbuffered, so a parent reading the pipe sees it at once.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(bound)\n".utf8))
            },
            logger: logger
        )
        try await app.runService()
    }
}

/// What `GET /` answers.
struct Flags: ResponseEncodable {
    var beta: Bool
    var greeting: String
    var maxItems: Int

    init(config: ConfigReader) async throws {
        beta = try await config.fetchBool(forKey: "features.beta", default: false)
        greeting = try await config.fetchString(forKey: "greeting", default: "Hello")
        maxItems = try await config.fetchInt(forKey: "limits.items", default: 3)
    }
}

/// What `GET /checkout` answers: the `new-checkout` flag for one user, with why.
struct Checkout: ResponseEncodable {
    var user: String
    var newCheckout: Bool
    var variant: String?
    var reason: String
    var errorCode: String?
}

/// A service that logs its wrapped service's failure instead of ending the server: a fleet that
/// cannot sync leaves the server answering from its local preferences.
struct KeepRunning: Service {
    let base: any Service
    let logger: Logger

    init(_ base: any Service, logger: Logger) {
        self.base = base
        self.logger = logger
    }

    func run() async throws {
        do {
            try await base.run()
        } catch {
            logger.error("the fleet sync ended: \(error); serving local preferences")
            try? await gracefulShutdown()
        }
    }
}

/// `--db PATH`, `--host HOST`, `--port N`, `--postgres URL`.
struct Arguments {
    var database = FileManager.default.temporaryDirectory.appendingPathComponent("feature-flags.sqlite").path
    var host: String?
    var port: Int?
    var postgres: String?

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            let value = rest.popFirst()
            switch option {
            case "--db": if let value { database = value }
            case "--host": host = value
            case "--port": port = value.flatMap(Int.init)
            case "--postgres": postgres = value
            default:
                FileHandle.standardError.write(Data("usage: FeatureFlags [--db PATH] [--host HOST] [--port N] [--postgres URL]\n".utf8))
                exit(2)
            }
        }
    }
}
