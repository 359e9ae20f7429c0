#if Observable
import Foundation
import SQLiteDefaultsObservable
import Synchronization
import Testing

// This target is compiled with `.defaultIsolation(MainActor.self)`: every declaration below
// is main-actor isolated unless marked `nonisolated`, as in an app or tool that opts in.

/// Value types stored by the store are used off the main actor (by its coding and its
/// observers), so they are declared `nonisolated`, as any `Sendable` value type must be in
/// such a module.
nonisolated enum Mode: String, Codable, Sendable {
    case fast, safe
}

nonisolated struct Window: Codable, Equatable, Sendable {
    var width: Int
    var height: Int
}

@ObservableDefaults(prefix: "ui.")
final class InterfaceSettings {
    var title = "Main"
    var mode: Mode = .safe
    var window: Window?
    @DefaultsBacked("zoom_level") var zoom = 1.0 {
        didSet { changes += 1 }
    }
    @ObservableOnly var isEditing = false
    @Ignore var changes = 0
}

@ObservableDefaults(prefix: "ui.", autoInit: false)
class Panel {
    var width = 100

    init(store: DefaultsStore) {
        setUpDefaults(store: store)
    }
}

@Suite("@ObservableDefaults in a module isolated to the main actor")
struct MainActorIsolationTests {
    @Test func ownAndExternalChangesNotify() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/observable-main-actor-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await check(database: directory + "/d.sqlite")
    }

    /// The checks, in their own function so that every store is released before the
    /// directory is removed.
    private func check(database: String) async throws {
        let settings = InterfaceSettings(store: try DefaultsStore(path: database))
        let own = Flag()
        withObservationTracking { _ = settings.title } onChange: { own.set() }
        settings.title = "Editor"
        #expect(await own.waitAsync())

        settings.mode = .fast
        settings.window = Window(width: 800, height: 600)
        settings.zoom = 1.5
        #expect(settings.changes == 1)
        let reopened = InterfaceSettings(store: try DefaultsStore(path: database))
        #expect(reopened.title == "Editor" && reopened.mode == .fast && reopened.zoom == 1.5)
        #expect(reopened.window == Window(width: 800, height: 600))

        // Announced on the store's monitor thread, read back on the main actor.
        let external = Flag()
        withObservationTracking { _ = settings.zoom } onChange: { external.set() }
        let other = try DefaultsStore(path: database)
        other[DefaultsKey<Double>("ui.zoom_level", default: 1)] = 3
        #expect(await external.waitAsync())
        #expect(settings.zoom == 3)

        let editing = Flag()
        withObservationTracking { _ = settings.isEditing } onChange: { editing.set() }
        settings.isEditing = true
        #expect(editing.isSet)

        let panel = Panel(store: try DefaultsStore(path: database))
        panel.width = 120
        #expect(Panel(store: other).width == 120)
    }
}

/// Set from any thread; `waitAsync` polls until set or a deadline passed, suspended in
/// between: a wait that blocked would hold the main actor (the test's) and a thread.
nonisolated final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }

    func waitAsync(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isSet { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return isSet
    }
}
#endif
