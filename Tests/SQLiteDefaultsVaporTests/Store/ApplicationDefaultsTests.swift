#if Vapor
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import SQLiteDefaultsVapor
import Testing
import VaporTesting
import TestScheduling

@Suite("app.defaults: the store's lifetime in a Vapor app", .offThePool)
struct ApplicationDefaultsTests {
    static let theme = DefaultsKey<String>("theme", default: "light")

    @Test("use(path:) opens the store; app.defaults.store and req.defaults are that one store")
    func useAndRequest() async throws {
        let directory = try TemporaryDirectory()
        try await withApp { app in
            try app.defaults.use(path: directory.path + "/defaults.sqlite")
            #expect(app.defaults.isInUse)
            app.defaults.store[Self.theme] = "dark"
            app.get("theme") { req in req.defaults[Self.theme] }
            app.get("same") { req in String(req.defaults === req.application.defaults.store) }
            try await app.testing().test(.GET, "theme") { response in
                #expect(response.status == .ok)
                #expect(response.body.string == "dark")
            }
            try await app.testing().test(.GET, "same") { #expect($0.body.string == "true") }
        }
        // Another connection sees what the app wrote.
        let other = try DefaultsStore(path: directory.path + "/defaults.sqlite")
        defer { try? other.close() }
        #expect(other[Self.theme] == "dark")
    }

    @Test("use(name:) takes the process's shared store for that name, DefaultsStore.standard(name:)")
    func useName() async throws {
        let directory = try TemporaryDirectory()
        // No other test of this target reads XDG_CONFIG_HOME; the name is unique to this run.
        setenv("XDG_CONFIG_HOME", directory.path, 1)
        let name = "vapor-test-" + UUID().uuidString
        try await withApp { app in
            try app.defaults.use(name: name)
            #expect(app.defaults.store === (try DefaultsStore.standard(name: name)))
            #expect(app.defaults.store.path == directory.path + "/" + name + "/defaults.sqlite")
        }
    }

    @Test("Before use: requireStore() throws .notInUse, isInUse is false, the console cannot be mounted")
    func beforeUse() async throws {
        try await withApp { app in
            #expect(!app.defaults.isInUse)
            #expect(throws: DefaultsVaporError.self) { try app.defaults.requireStore() }
            #expect { try app.defaults.console.mount(on: app.routes) } throws: { ($0 as? DefaultsVaporError)?.code == .notInUse }
        }
    }

    @Test("app.defaults.store before use stops the program with a message naming the missing call")
    func storeBeforeUseTraps() async {
        await #expect(processExitsWith: .failure) {
            let app = try await Application.make(.testing)
            _ = app.defaults.store
        }
    }

    @Test("use twice: the second call throws .alreadyInUse and the first store stays")
    func useTwice() async throws {
        let directory = try TemporaryDirectory()
        try await withApp { app in
            try app.defaults.use(path: directory.path + "/a.sqlite")
            let first = app.defaults.store
            #expect { try app.defaults.use(path: directory.path + "/b.sqlite") } throws: { error in
                let error = error as? DefaultsVaporError
                return error?.code == .alreadyInUse && error?.message.contains("a.sqlite") == true
            }
            #expect { try app.defaults.use(first) } throws: { ($0 as? DefaultsVaporError)?.code == .alreadyInUse }
            #expect(app.defaults.store === first)
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/b.sqlite"))
        }
    }

    @Test("Shutdown closes a store the integration opened: a write after it throws the store's .closed; requireStore throws .shutDown")
    func shutdownCloses() async throws {
        let directory = try TemporaryDirectory()
        let app = try await Application.make(.testing)
        try app.defaults.use(path: directory.path + "/defaults.sqlite")
        let store = app.defaults.store
        // The app's own services use it until shutdown.
        try await store.set("dark", for: Self.theme)
        try await app.asyncShutdown()
        #expect { try store.set("light", for: Self.theme) } throws: { ($0 as? DefaultsError)?.code == .closed }
        #expect { try app.defaults.requireStore() } throws: { ($0 as? DefaultsVaporError)?.code == .shutDown }
    }

    @Test("A store handed over with use(_:) stays open at shutdown unless closesOnShutdown")
    func handedOverStore() async throws {
        let directory = try TemporaryDirectory()
        let kept = try DefaultsStore(path: directory.path + "/kept.sqlite")
        defer { try? kept.close() }
        try await withApp { app in try app.defaults.use(kept) }
        try await kept.set("dark", for: Self.theme)
        #expect(kept[Self.theme] == "dark")

        let closed = try DefaultsStore(path: directory.path + "/closed.sqlite")
        try await withApp { app in try app.defaults.use(closed, closesOnShutdown: true) }
        #expect { try closed.set("dark", for: Self.theme) } throws: { ($0 as? DefaultsError)?.code == .closed }
    }
}
#endif
