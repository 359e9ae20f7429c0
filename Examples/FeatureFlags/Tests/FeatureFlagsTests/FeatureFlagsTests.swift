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

        try await run(Self.prefs, ["--db", database, "write", "features.beta", "1", "--type", "bool"])
        let second = try await get(base + "/")
        #expect(second.body.contains("\"beta\":true"), "\(second.body)")
        #expect(try await get(base + "/beta").status == 200)

        try await run(Self.prefs, ["--db", database, "write", "limits.items", "2", "--type", "int"])
        #expect(try await get(base + "/items").body == "item 1\nitem 2\n")
        try await run(Self.prefs, ["--db", database, "write", "greeting", "Hi"])
        #expect(try await get(base + "/").body.contains("\"greeting\":\"Hi\""))

        try await run(Self.prefs, ["--db", database, "delete", "features.beta"])
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
        try await run(Self.prefs, ["--db", database, "write", "greeting", "Hi"])
        let keys = try await get(base + "/admin/prefs/api/keys", headers: auth)
        #expect(keys.status == 200 && keys.body.contains(#""key":"greeting""#), "\(keys.body)")
    }

    @Test("A percentage rollout: staff always, a stable share of users by id, changed by loading the flag set again")
    func percentageRollout() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feature-flags-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("flags.sqlite").path
        let server = try Server(executable: Self.built("FeatureFlags"), arguments: ["--db", database, "--port", "0"])
        defer { server.stop() }
        let base = try #require(await server.address(timeout: .seconds(120)), "the server did not start: \(server.errorOutput)")

        // No flag set yet: the default, and flagd's reason for a missing flag.
        let missing = try await get(base + "/checkout?user=u-1")
        #expect(missing.status == 200)
        #expect(missing.body.contains(#""newCheckout":false"#) && missing.body.contains(#""errorCode":"FLAG_NOT_FOUND""#), "\(missing.body)")
        #expect(try await get(base + "/checkout").status == 400)

        // The example's own file, with its share of users set to `percent`.
        let rollout = try String(contentsOfFile: #filePath.replacingOccurrences(of: "Tests/FeatureFlagsTests/FeatureFlagsTests.swift", with: "rollout.json"), encoding: .utf8)
        func load(percent: Int) async throws {
            let file = directory.appendingPathComponent("rollout-\(percent).json").path
            let edited = rollout.replacingOccurrences(of: #"[["on", 10], ["off", 90]]"#, with: "[[\"on\", \(percent)], [\"off\", \(100 - percent)]]")
            #expect(edited != rollout || percent == 10)
            try edited.write(toFile: file, atomically: true, encoding: .utf8)
            try await run(Self.prefs, ["--db", database, "flags", "load", file])
        }
        func enabled(_ users: Range<Int>) async throws -> Set<Int> {
            var on = Set<Int>()
            for user in users {
                let answer = try await get(base + "/checkout?user=u-\(user)")
                #expect(answer.status == 200 && answer.body.contains(#""reason":"TARGETING_MATCH""#), "\(answer.body)")
                if answer.body.contains(#""newCheckout":true"#) { on.insert(user) }
            }
            return on
        }

        try await load(percent: 50)
        let half = try await enabled(0..<200)
        // flagd's bucketing is a hash: about half, never none or all of 200 users.
        #expect((60...140).contains(half.count), "\(half.count) of 200 users in a 50 % rollout")
        #expect(try await enabled(0..<200) == half, "each user stays in the bucket it was put in")
        let staff = try await get(base + "/checkout?user=u-9999&email=ada%40example.com")
        #expect(staff.body.contains(#""newCheckout":true"#), "\(staff.body)")

        // Widening the rollout keeps everyone who had it (the buckets do not move) and adds more.
        try await load(percent: 80)
        let wider = try await enabled(0..<200)
        #expect(half.isSubset(of: wider) && wider.count > half.count, "\(half.count) → \(wider.count)")
        try await load(percent: 0)
        #expect(try await enabled(0..<50).isEmpty, "a 0 % rollout serves nobody but staff")
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

    /// Runs a program to completion, expecting success. Suspends (the termination handler
    /// resumes it) rather than blocking a thread of the cooperative pool on the child.
    func run(_ executable: String, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        #expect(status == 0, "\(executable) \(arguments) failed")
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
