#if Vapor
import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaultsVapor
import SQLiteDefaults
import Testing
import VaporTesting
import TestScheduling

@Suite("DefaultsCommand: prefs as a command of a Vapor app, in process", .offThePool)
struct DefaultsCommandTests {
    /// Runs `DefaultsCommand` with `arguments` (what follows `App prefs`) in `app`.
    static func run(_ arguments: [String], in app: Application) async throws {
        var context = CommandContext(console: app.console, input: CommandInput(arguments: ["App"] + arguments))
        context.application = app
        try await DefaultsCommand(exitsOnFailure: false).run(using: &context)
    }

    @Test("write and read work on the app's store (its file; no --db given)")
    func writesTheAppsStore() async throws {
        let directory = try TemporaryDirectory()
        try await withApp { app in
            try app.defaults.use(path: directory.path + "/defaults.sqlite")
            try await Self.run(["write", "greeting", "Hi", "--reason", "test"], in: app)
        }
        let other = try DefaultsStore(path: directory.path + "/defaults.sqlite")
        defer { try? other.close() }
        #expect(try other.value(for: DefaultsKey<SQLiteValue?>("greeting")) == .text("Hi"))
        #expect(try await other.history(keys: ["greeting"]).first?.writer.reason == "test")
    }

    @Test("Bad arguments: prefs reports them and the command fails with .commandFailed")
    func badArguments() async throws {
        let directory = try TemporaryDirectory()
        try await withApp { app in
            try app.defaults.use(path: directory.path + "/defaults.sqlite")
            for arguments in [["bogus"], ["write"], ["read", "k", "--type", "nope"]] {
                await #expect(throws: DefaultsVaporError.self, "\(arguments)") { try await Self.run(arguments, in: app) }
            }
        }
    }

    @Test("Without app.defaults.use and without --db: .notInUse")
    func withoutStore() async throws {
        try await withApp { app in
            await #expect { try await Self.run(["list"], in: app) } throws: { ($0 as? DefaultsVaporError)?.code == .notInUse }
        }
    }
}
#endif
