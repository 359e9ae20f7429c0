import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Starts the built FeatureFlags server on a free loopback port, drives it over HTTP, flips a
/// flag with `prefs`, and sees the next response change, with no restart.
@Suite("FeatureFlags example")
struct FeatureFlagsTests {
    /// Executables built next to this test bundle.
    static func built(_ name: String) -> String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name).path
    }

    static var prefs: String {
        if let path = ProcessInfo.processInfo.environment["PREFS_EXECUTABLE"], !path.isEmpty { return path }
        return built("prefs")
    }

    @Test("prefs write features.beta 1 --type bool changes the next response")
    func flipAFlag() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feature-flags-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("flags.sqlite").path
        try #require(FileManager.default.isExecutableFile(atPath: Self.prefs),
                     "prefs is missing at \(Self.prefs): build it (swift build --product prefs) or set PREFS_EXECUTABLE")

        let server = try Server(executable: Self.built("FeatureFlags"), arguments: ["--db", database, "--port", "0"])
        defer { server.stop() }
        let base = try #require(await server.address(timeout: .seconds(120)), "the server did not start: \(server.errorOutput)")

        let first = try await get(base + "/")
        #expect(first.status == 200)
        #expect(first.body.contains("\"beta\":false"), "\(first.body)")
        #expect(try await get(base + "/beta").status == 404)
        #expect(try await get(base + "/items").body == "item 1\nitem 2\nitem 3\n")

        try run(Self.prefs, ["--db", database, "write", "features.beta", "1", "--type", "bool"])
        let second = try await get(base + "/")
        #expect(second.body.contains("\"beta\":true"), "\(second.body)")
        #expect(try await get(base + "/beta").status == 200)

        try run(Self.prefs, ["--db", database, "write", "limits.items", "2", "--type", "int"])
        #expect(try await get(base + "/items").body == "item 1\nitem 2\n")
        try run(Self.prefs, ["--db", database, "write", "greeting", "Hi"])
        #expect(try await get(base + "/").body.contains("\"greeting\":\"Hi\""))

        try run(Self.prefs, ["--db", database, "delete", "features.beta"])
        #expect(try await get(base + "/beta").status == 404)
    }

    @Test("GET /metrics shows the engine's and the fleet sync's metrics in Prometheus's text format")
    func metrics() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feature-flags-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("flags.sqlite").path
        // Port 1 on loopback: nothing listens, so the sync keeps trying; its metrics say it is
        // not connected.
        let server = try Server(executable: Self.built("FeatureFlags"),
                                arguments: ["--db", database, "--port", "0",
                                            "--postgres", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable"])
        defer { server.stop() }
        let base = try #require(await server.address(timeout: .seconds(120)), "the server did not start: \(server.errorOutput)")
        var body = ""
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let scraped = try await get(base + "/metrics")
            #expect(scraped.status == 200)
            body = scraped.body
            if body.contains("sqlitedefaults_fleet_connected") { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(body.contains("sqlitedefaults_fleet_connected{table=\"defaults_fleet\"} 0"), "\(body)")
        #expect(body.contains("# TYPE sqlitedefaults_fleet_pushes_total counter"), "\(body)")
        for counter in ["pushed_rows_total", "applied_rows_total", "refused_rows_total", "fetches_total", "retries_total"] {
            #expect(body.contains("# TYPE sqlitedefaults_fleet_\(counter) counter"), "\(body)")
        }
        #expect(body.contains("# TYPE sqlitedefaults_fleet_apply_lag_seconds histogram"), "\(body)")
        // The engine's own metrics, from the store the server opened.
        #expect(body.contains("# TYPE sqlitedefaults_commits_total counter"), "\(body)")
        #expect(body.contains("# TYPE sqlitedefaults_external_changes_total counter"), "\(body)")
        #expect(body.contains("# TYPE sqlitedefaults_monitor_look_seconds histogram"), "\(body)")
        // Still serving its local preferences.
        #expect(try await get(base + "/").status == 200)
    }

    @Test("The SQLiteDefaults console is mounted at /admin/prefs/ behind the app's own token")
    func adminConsole() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feature-flags-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("flags.sqlite").path
        let server = try Server(executable: Self.built("FeatureFlags"), arguments: ["--db", database, "--port", "0"],
                                environment: ["ADMIN_TOKEN": "admin-secret"])
        defer { server.stop() }
        let base = try #require(await server.address(timeout: .seconds(120)), "the server did not start: \(server.errorOutput)")
        let auth = ["Authorization": "Bearer admin-secret"]

        #expect(try await get(base + "/admin/prefs/api/keys").status == 401)
        #expect(try await get(base + "/admin/prefs/api/keys", headers: ["Authorization": "Bearer wrong"]).status == 401)
        let page = try await get(base + "/admin/prefs/", headers: auth)
        #expect(page.status == 200 && page.body.contains("console.js"))
        try run(Self.prefs, ["--db", database, "write", "greeting", "Hi"])
        let keys = try await get(base + "/admin/prefs/api/keys", headers: auth)
        #expect(keys.status == 200 && keys.body.contains(#""key":"greeting""#), "\(keys.body)")
    }

    /// One GET over loopback.
    func get(_ url: String, headers: [String: String] = [:]) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: try #require(URL(string: url)))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.timeoutInterval = 30
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? -1
        return (status, String(decoding: data, as: UTF8.self))
    }

    /// Runs a program to completion, expecting success.
    func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(executable) \(arguments) failed")
    }
}

/// The server as a child process; its address is read from its "listening on" line.
final class Server: @unchecked Sendable {
    // Sendable proof: `output` and `errors` are only touched while `lock` is held; `process`
    // is only started and terminated, which Process allows from any thread.
    private let process = Process()
    private let lock = NSLock()
    private var output = ""
    private var errors = ""

    init(executable: String, arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            self?.lock.withLock { self?.output += text }
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            self?.lock.withLock { self?.errors += text }
        }
        try process.run()
    }

    var errorOutput: String { lock.withLock { errors } }

    /// Waits for the "listening on http://…" line; returns the base URL.
    func address(timeout: Duration) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, process.isRunning {
            let line = lock.withLock { output.split(separator: "\n").first { $0.hasPrefix("listening on ") } }
            if let line { return String(line.dropFirst("listening on ".count)) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    func stop() {
        if process.isRunning {
            process.terminate()   // SIGTERM: graceful shutdown closes the store
            process.waitUntilExit()
        }
    }
}
