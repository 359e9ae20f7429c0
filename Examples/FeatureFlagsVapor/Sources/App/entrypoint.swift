import Logging
import Vapor

/// ```
/// FLAGS_DB=/tmp/flags.sqlite swift run App serve --hostname 127.0.0.1 --port 8080
/// curl http://127.0.0.1:8080/                   # {"beta":false,"greeting":"Hello","maxItems":3}
/// FLAGS_DB=/tmp/flags.sqlite swift run App prefs write features.beta true --type bool
/// curl http://127.0.0.1:8080/                   # {"beta":true,…}: the next response, no restart
/// ```
@main
enum Entrypoint {
    static func main() async throws {
        var env = try Environment.detect()
        try LoggingSystem.bootstrap(from: &env)
        let app = try await Application.make(env)
        do {
            try await configure(app)
            try await app.execute()
        } catch {
            app.logger.report(error: error)
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }
}
