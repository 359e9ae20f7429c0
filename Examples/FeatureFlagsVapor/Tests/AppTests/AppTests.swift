@testable import App
import Foundation
import SQLiteDefaults
import Testing
import VaporTesting

/// The app in process (VaporTesting), and the built executable for `App prefs`.
@Suite("FeatureFlagsVapor example", .serialized)
struct AppTests {
    /// A temporary folder for a test's store.
    static func temporaryDatabase() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feature-flags-vapor-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("flags.sqlite").path)
    }

    /// The app configured on the store at `path`, as `configure` does from FLAGS_DB.
    static func withConfiguredApp(path: String, adminToken: String? = nil, _ test: (Application) async throws -> Void) async throws {
        setenv("FLAGS_DB", path, 1)
        if let adminToken { setenv("ADMIN_TOKEN", adminToken, 1) } else { unsetenv("ADMIN_TOKEN") }
        try await withApp(configure: configure, test)
    }

    @Test("The routes answer from the store; a change to the store is in the next response")
    func routesFollowTheStore() async throws {
        let (directory, path) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.withConfiguredApp(path: path) { app in
            try await app.testing().test(.GET, "/") { response in
                #expect(response.status == .ok)
                #expect(response.body.string.contains(#""beta":false"#), "\(response.body.string)")
            }
            try await app.testing().test(.GET, "beta") { #expect($0.status == .notFound) }
            try await app.testing().test(.GET, "items") { #expect($0.body.string == "item 1\nitem 2\nitem 3\n") }
            // Another connection, as another process's `prefs write` would be.
            let other = try DefaultsStore(path: path)
            defer { try? other.close() }
            try await other.set(true, for: Flag.beta)
            try await other.set(2, for: Flag.items)
            try await app.testing().test(.GET, "beta") { #expect($0.status == .ok) }
            try await app.testing().test(.GET, "items") { #expect($0.body.string == "item 1\nitem 2\n") }
        }
    }

    @Test("The console is at /admin/prefs/ behind the app's token, and records the app's user as actor")
    func adminConsole() async throws {
        let (directory, path) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.withConfiguredApp(path: path, adminToken: "admin-secret") { app in
            try await app.testing().test(.GET, "admin/prefs/api/keys") { #expect($0.status == .unauthorized) }
            let auth: HTTPHeaders = ["Authorization": "Bearer admin-secret"]
            try await app.testing().test(.GET, "admin/prefs/", headers: auth) { response in
                #expect(response.status == .ok)
                #expect(response.body.string.contains("console.js"))
            }
            var json = auth
            json.contentType = .json
            try await app.testing().test(.PUT, "admin/prefs/api/keys/greeting", headers: json, body: ByteBuffer(string: #"{"value": "Hi"}"#)) {
                #expect($0.status == .ok)
            }
            try await app.testing().test(.GET, "/") { #expect($0.body.string.contains(#""greeting":"Hi""#)) }
            #expect(try await app.defaults.store.history(keys: ["greeting"]).first?.writer.actor == "admin")
        }
    }

    /// The built `App` executable, next to this test bundle.
    static var executable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("App").path
    }

    /// Runs `App ARGUMENTS` with FLAGS_DB=`path`; its status, standard output and error.
    static func runApp(_ arguments: [String], path: String) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["FLAGS_DB"] = path
        environment["ADMIN_TOKEN"] = nil
        process.environment = environment
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test("App prefs write, list and read run prefs on the app's store; bad arguments print prefs's error and fail")
    func prefsCommand() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable), "App is missing at \(Self.executable)")
        let (directory, path) = try Self.temporaryDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }

        let write = try Self.runApp(["prefs", "write", "features.beta", "true", "--type", "bool", "--reason", "launch"], path: path)
        #expect(write.status == 0, "\(write.error)")
        let list = try Self.runApp(["prefs", "list"], path: path)
        #expect(list.status == 0, "\(list.error)")
        #expect(list.output.contains("features.beta"), "\(list.output)")
        let read = try Self.runApp(["prefs", "read", "features.beta"], path: path)
        #expect(read.output == "1\n", "\(read.output)")
        let history = try Self.runApp(["prefs", "history", "features.beta", "--json"], path: path)
        #expect(history.output.contains(#""reason":"launch""#), "\(history.output)")

        let bad = try Self.runApp(["prefs", "bogus"], path: path)
        #expect(bad.status != 0)
        #expect(bad.error.contains("prefs: unknown command 'bogus'"), "\(bad.error)")
        let missing = try Self.runApp(["prefs", "read"], path: path)
        #expect(missing.status != 0)
        #expect(missing.error.hasPrefix("prefs: "), "\(missing.error)")
    }
}
