#if Observable
import DefaultsTestSupport
import Foundation
import SQLiteDefaultsObservable
import Testing
import TestScheduling

/// `withObservationTracking` on one property fires for a change of that property's key from
/// every writer, and for nothing else.
@Suite("@ObservableDefaults: who can change a property", .offThePool, .requiresSQLiteShell)
struct ChangeSourceTests {
    @Test func ownWriteNotifiesAndPersists() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.name }
            settings.name = "Ada"
            #expect(await changed.waitAsync())
            #expect(settings.name == "Ada")
            // Durable and readable by a fresh store on the same file.
            #expect(Settings(store: try directory.store()).name == "Ada")
            #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'app.name';") == "Ada")
        }
    }

    @Test func anotherObjectOnTheSameStoreNotifies() async throws {
        try await withTemporaryDirectory { directory in
            let store = try directory.store()
            let reader = Settings(store: store)
            let writer = Settings(store: store)
            let changed = track { _ = reader.name }
            writer.name = "Bob"
            #expect(await changed.waitAsync())
            #expect(reader.name == "Bob")
        }
    }

    @Test func anotherStoreOnTheSameFileNotifies() async throws {
        try await withTemporaryDirectory { directory in
            let reader = Settings(store: try directory.store())
            let writer = Settings(store: try directory.store())
            let changed = track { _ = reader.name }
            writer.name = "Cy"
            #expect(await changed.waitAsync())
            #expect(reader.name == "Cy")
        }
    }

    @Test func anotherProcessNotifies() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.name }
            let helper = try await runHelper("set-string", directory.database, "app.name", "Dee")
            #expect(helper.status == 0, "\(helper.error)")
            #expect(await changed.waitAsync())
            #expect(settings.name == "Dee")
        }
    }

    @Test func sqlite3ShellNotifies() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.name }
            try await sqlite3Upsert(directory.database, key: "app.name", text: "Zed")
            #expect(await changed.waitAsync())
            #expect(settings.name == "Zed")

            let removed = track { _ = settings.name }
            try await sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'app.name';")
            #expect(await removed.waitAsync())
            #expect(settings.name == "Guest")
        }
    }

    /// When the notification of an external change arrives, reading the property already
    /// gives the new value: the object never shows a stale value after a delivered change.
    @Test func valueIsCurrentWhenTheChangeIsAnnounced() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            // `read` runs at registration, then again inside each announcement.
            let seen = Collected<String>()
            let changes = ChangeCounter(settings) { seen.append($0.name) }
            try await sqlite3Upsert(directory.database, key: "app.name", text: "Fresh")
            #expect(await changes.waitAsync(count: 1))
            // The counter counts before it registers again (which reads): wait for that read.
            #expect(await waitUntil(timeout: .seconds(10)) { seen.all.count >= 2 })
            #expect(seen.all == ["Guest", "Fresh"])
        }
    }

    @Test func otherPropertiesDoNotNotify() async throws {
        try await withTemporaryDirectory { directory in
            let store = try directory.store()
            let settings = Settings(store: store)
            let nameChanged = track { _ = settings.name }
            let countChanged = track { _ = settings.launchCount }
            // This object, then another store, then the shell, each change launch_count only.
            settings.launchCount = 1
            #expect(await countChanged.waitAsync())
            let countAgain = track { _ = settings.launchCount }
            Settings(store: try directory.store()).launchCount = 2
            #expect(await countAgain.waitAsync())
            let countThird = track { _ = settings.launchCount }
            try await sqlite3(directory.database, "UPDATE defaults SET value = 3 WHERE key = 'app.launch_count';")
            #expect(await countThird.waitAsync())
            #expect(settings.launchCount == 3)
            #expect(!nameChanged.fired)
        }
    }

    /// The store announces commits in order, so once a later change has been announced, an
    /// earlier write that should have announced something has done so.
    @Test func writingTheSameValueDoesNotNotify() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changes = ChangeCounter(settings) { _ = $0.name }
            settings.name = "Same"
            #expect(await changes.waitAsync(count: 1))
            settings.name = "Same"
            settings.name = "Other"
            #expect(await changes.waitAsync(count: 2))
            #expect(changes.count == 2)
        }
    }

    /// Each write is announced once (not once by the setter and again by the store), to an
    /// observer that re-registers on every change as a long-lived one does.
    @Test func ownWriteIsAnnouncedOnce() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changes = ChangeCounter(settings) { _ = $0.launchCount }
            let later = ChangeCounter(settings) { _ = $0.name }
            settings.launchCount = 5
            settings.launchCount = 6
            settings.name = "later"
            #expect(await later.waitAsync(count: 1))
            #expect(changes.count == 2)
        }
    }

    @Test func releasedObjectStopsObserving() async throws {
        try await withTemporaryDirectory { directory in
            let store = try directory.store()
            weak var released: Settings?
            do {
                let settings = Settings(store: store)
                released = settings
                settings.name = "Temp"
            }
            #expect(released == nil)
            // A change after the object is gone reaches nobody and breaks nothing.
            let survivor = Settings(store: store)
            let changed = track { _ = survivor.name }
            try await sqlite3Upsert(directory.database, key: "app.name", text: "After")
            #expect(await changed.waitAsync())
        }
    }
}

@Suite("@ObservableDefaults: options", .offThePool, .requiresSQLiteShell)
struct OptionTests {
    @Test func ignoreExternalChangesAnnouncesOnlyOwnWrites() async throws {
        try await withTemporaryDirectory { directory in
            let store = try directory.store()
            let isolated = IsolatedSettings(store: store)
            let control = Settings(store: store)

            let ownChange = track { _ = isolated.name }
            isolated.name = "Mine"
            #expect(ownChange.fired)

            // Another object on the same store, then the shell: `control` hears both, `isolated`
            // neither (its reads still show the store's value).
            let isolatedChanged = track { _ = isolated.name }
            let controlChanged = track { _ = control.name }
            Settings(store: store).name = "Theirs"
            #expect(await controlChanged.waitAsync())
            let controlAgain = track { _ = control.name }
            try await sqlite3Upsert(directory.database, key: "app.name", text: "Shell")
            #expect(await controlAgain.waitAsync())
            #expect(!isolatedChanged.fired)
            #expect(isolated.name == "Shell")
        }
    }

    @Test func generatedInitIgnoreExternalChangesArgument() async throws {
        try await withTemporaryDirectory { directory in
            let store = try directory.store()
            let isolated = Settings(store: store, ignoreExternalChanges: true)
            let control = Settings(store: store)
            let isolatedChanged = track { _ = isolated.name }
            let controlChanged = track { _ = control.name }
            try await sqlite3Upsert(directory.database, key: "app.name", text: "Shell")
            #expect(await controlChanged.waitAsync())
            #expect(!isolatedChanged.fired)
        }
    }

    @Test func observableOnlyIsObservableAndNotStored() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.isEditing }
            settings.isEditing = true
            #expect(changed.fired)
            #expect(settings.isEditing)
            #expect(try await !storedKeys(directory.database).contains { $0.contains("isEditing") })
            #expect(Settings(store: try directory.store()).isEditing == false)
        }
    }

    @Test func ignoreIsNeitherObservableNorStored() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.scratch }
            settings.scratch = 42
            #expect(!changed.fired)
            #expect(settings.scratch == 42)
            #expect(try await !storedKeys(directory.database).contains { $0.contains("scratch") })
        }
    }

    @Test func prefixAndDefaultsBackedNamesAreTheStoredKeys() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            settings.name = "Ada"
            settings.launchCount = 3
            #expect(try await storedKeys(directory.database) == ["app.launch_count", "app.name"])
            #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'app.launch_count';") == "3")
        }
    }

    @Test func prefixGivenToInitReplacesTheMacroPrefix() async throws {
        try await withTemporaryDirectory { directory in
            let store = try directory.store()
            let tenantA = Settings(store: store, prefix: "a.")
            let tenantB = Settings(store: store, prefix: "b.")
            tenantA.name = "Alice"
            tenantB.launchCount = 9
            #expect(try await storedKeys(directory.database) == ["a.name", "b.launch_count"])
            #expect(tenantB.name == "Guest")
            // Observation follows the run-time key.
            let changed = track { _ = tenantA.name }
            try await sqlite3Upsert(directory.database, key: "a.name", text: "Alicia")
            #expect(await changed.waitAsync())
            #expect(tenantA.name == "Alicia")
        }
    }

    @Test func observeFirstPersistsOnlyDefaultsBacked() async throws {
        try await withTemporaryDirectory { directory in
            let session = Session(store: try directory.store())
            let selectionChanged = track { _ = session.selection }
            session.user = "ada"
            session.logins = 2
            session.selection = 4
            #expect(selectionChanged.fired)
            #expect(try await storedKeys(directory.database) == ["session.login_count", "session.user"])
            let reopened = Session(store: try directory.store())
            #expect(reopened.user == "ada" && reopened.logins == 2 && reopened.selection == 3)
            let userChanged = track { _ = reopened.user }
            try await sqlite3Upsert(directory.database, key: "session.user", text: "bob")
            #expect(await userChanged.waitAsync())
        }
    }

    @Test func autoInitFalseWithUserInitAndSubclass() async throws {
        try await withTemporaryDirectory { directory in
            let store = try directory.store()
            let object = CustomInitChild(id: 1, store: store)
            #expect(object.id == 1 && object.extra == 7)
            let changed = track { _ = object.title }
            object.title = "Report"
            #expect(await changed.waitAsync())
            #expect(try await storedKeys(directory.database) == ["custom.title"])
            let other = CustomInit(id: 2, store: store)
            #expect(other.title == "Report")
            let external = track { _ = other.title }
            try await sqlite3Upsert(directory.database, key: "custom.title", text: "Memo")
            #expect(await external.waitAsync())
            #expect(object.title == "Memo")
        }
    }

    @Test func nonFinalClassAndInheritedGeneratedInit() async throws {
        try await withTemporaryDirectory { directory in
            let derived = DerivedSettings(store: try directory.store())
            let changed = track { _ = derived.color }
            derived.color = "blue"
            #expect(await changed.waitAsync())
            #expect(derived.describe() == "color blue")
            #expect(BaseSettings(store: try directory.store()).color == "blue")
        }
    }
}

@Suite("@ObservableDefaults: values and observers", .offThePool, .requiresSQLiteShell)
struct ValueTests {
    @Test func everyKindOfValueRoundTrips() async throws {
        try await withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            #expect(settings.profile == nil)
            #expect(settings.nickname == nil)
            #expect(settings.backup == Profile(name: "backup", age: 1))
            settings.theme = .dark
            settings.profile = Profile(name: "Ada", age: 36)
            settings.recent = [URL(string: "https://example.com/a")!]
            settings.volume = 0.75
            settings.tags = ["x", "y"]
            settings.limits = ["cpu": 2]
            settings.nickname = "A"
            settings.backup = Profile(name: "copy", age: 2)

            let reopened = Settings(store: try directory.store())
            #expect(reopened.theme == .dark)
            #expect(reopened.profile == Profile(name: "Ada", age: 36))
            #expect(reopened.recent == [URL(string: "https://example.com/a")!])
            #expect(reopened.volume == 0.75)
            #expect(reopened.tags == ["x", "y"])
            #expect(reopened.limits == ["cpu": 2])
            #expect(reopened.nickname == "A")
            #expect(reopened.backup == Profile(name: "copy", age: 2))
            // Stored as the store stores them: raw value, JSON.
            #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'app.theme';") == "dark")

            // Setting an optional to nil removes the row and reads nil again.
            let changed = track { _ = reopened.profile }
            settings.profile = nil
            #expect(await changed.waitAsync())
            #expect(reopened.profile == nil)
            #expect(try await !storedKeys(directory.database).contains("app.profile"))
        }
    }

    @Test func willSetAndDidSetRunAroundTheWrite() async throws {
        try await withTemporaryDirectory { directory in
            let settings = ObservedSettings(store: try directory.store())
            let changed = track { _ = settings.level }
            settings.level = 4
            #expect(await changed.waitAsync())
            #expect(settings.log == ["will 1->4", "did 1->4"])
            settings.log = []
            settings.level = 20   // didSet clamps it through the store
            #expect(settings.level == 10)
            #expect(settings.log == ["will 4->20", "did 4->20", "will 20->10", "did 20->10"])
            #expect(try await sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'obs.level';") == "10")

            settings.log = []
            let modeChanged = track { _ = settings.mode }
            settings.mode = "busy"
            #expect(modeChanged.fired)
            #expect(settings.log == ["mode idle->busy"])
        }
    }
}
#endif
