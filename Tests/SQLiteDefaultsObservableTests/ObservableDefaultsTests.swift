#if Observable
import DefaultsTestSupport
import Foundation
import SQLiteDefaultsObservable
import Testing

/// `withObservationTracking` on one property fires for a change of that property's key from
/// every writer, and for nothing else.
@Suite("@ObservableDefaults: who can change a property", .requiresSQLiteShell)
struct ChangeSourceTests {
    @Test func ownWriteNotifiesAndPersists() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.name }
            settings.name = "Ada"
            #expect(changed.wait())
            #expect(settings.name == "Ada")
            // Durable and readable by a fresh store on the same file.
            #expect(Settings(store: try directory.store()).name == "Ada")
            #expect(try sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'app.name';") == "Ada")
        }
    }

    @Test func anotherObjectOnTheSameStoreNotifies() throws {
        try withTemporaryDirectory { directory in
            let store = try directory.store()
            let reader = Settings(store: store)
            let writer = Settings(store: store)
            let changed = track { _ = reader.name }
            writer.name = "Bob"
            #expect(changed.wait())
            #expect(reader.name == "Bob")
        }
    }

    @Test func anotherStoreOnTheSameFileNotifies() throws {
        try withTemporaryDirectory { directory in
            let reader = Settings(store: try directory.store())
            let writer = Settings(store: try directory.store())
            let changed = track { _ = reader.name }
            writer.name = "Cy"
            #expect(changed.wait())
            #expect(reader.name == "Cy")
        }
    }

    @Test func anotherProcessNotifies() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.name }
            let helper = try runHelper("set-string", directory.database, "app.name", "Dee")
            #expect(helper.status == 0, "\(helper.error)")
            #expect(changed.wait())
            #expect(settings.name == "Dee")
        }
    }

    @Test func sqlite3ShellNotifies() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.name }
            try sqlite3Upsert(directory.database, key: "app.name", text: "Zed")
            #expect(changed.wait())
            #expect(settings.name == "Zed")

            let removed = track { _ = settings.name }
            try sqlite3(directory.database, "DELETE FROM defaults WHERE key = 'app.name';")
            #expect(removed.wait())
            #expect(settings.name == "Guest")
        }
    }

    /// When the notification of an external change arrives, reading the property already
    /// gives the new value: the object never shows a stale value after a delivered change.
    @Test func valueIsCurrentWhenTheChangeIsAnnounced() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            // `read` runs at registration, then again inside each announcement.
            let seen = Collected<String>()
            let changes = ChangeCounter(settings) { seen.append($0.name) }
            try sqlite3Upsert(directory.database, key: "app.name", text: "Fresh")
            #expect(changes.wait(count: 1))
            // The counter counts before it registers again (which reads): wait for that read.
            #expect(waitBlocking(timeout: .seconds(10)) { seen.all.count >= 2 })
            #expect(seen.all == ["Guest", "Fresh"])
        }
    }

    @Test func otherPropertiesDoNotNotify() throws {
        try withTemporaryDirectory { directory in
            let store = try directory.store()
            let settings = Settings(store: store)
            let nameChanged = track { _ = settings.name }
            let countChanged = track { _ = settings.launchCount }
            // This object, then another store, then the shell, each change launch_count only.
            settings.launchCount = 1
            #expect(countChanged.wait())
            let countAgain = track { _ = settings.launchCount }
            Settings(store: try directory.store()).launchCount = 2
            #expect(countAgain.wait())
            let countThird = track { _ = settings.launchCount }
            try sqlite3(directory.database, "UPDATE defaults SET value = 3 WHERE key = 'app.launch_count';")
            #expect(countThird.wait())
            #expect(settings.launchCount == 3)
            #expect(!nameChanged.fired)
        }
    }

    /// The store announces commits in order, so once a later change has been announced, an
    /// earlier write that should have announced something has done so.
    @Test func writingTheSameValueDoesNotNotify() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changes = ChangeCounter(settings) { _ = $0.name }
            settings.name = "Same"
            #expect(changes.wait(count: 1))
            settings.name = "Same"
            settings.name = "Other"
            #expect(changes.wait(count: 2))
            #expect(changes.count == 2)
        }
    }

    /// Each write is announced once (not once by the setter and again by the store), to an
    /// observer that re-registers on every change as a long-lived one does.
    @Test func ownWriteIsAnnouncedOnce() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changes = ChangeCounter(settings) { _ = $0.launchCount }
            let later = ChangeCounter(settings) { _ = $0.name }
            settings.launchCount = 5
            settings.launchCount = 6
            settings.name = "later"
            #expect(later.wait(count: 1))
            #expect(changes.count == 2)
        }
    }

    @Test func releasedObjectStopsObserving() throws {
        try withTemporaryDirectory { directory in
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
            try sqlite3Upsert(directory.database, key: "app.name", text: "After")
            #expect(changed.wait())
        }
    }
}

@Suite("@ObservableDefaults: options", .requiresSQLiteShell)
struct OptionTests {
    @Test func ignoreExternalChangesAnnouncesOnlyOwnWrites() throws {
        try withTemporaryDirectory { directory in
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
            #expect(controlChanged.wait())
            let controlAgain = track { _ = control.name }
            try sqlite3Upsert(directory.database, key: "app.name", text: "Shell")
            #expect(controlAgain.wait())
            #expect(!isolatedChanged.fired)
            #expect(isolated.name == "Shell")
        }
    }

    @Test func generatedInitIgnoreExternalChangesArgument() throws {
        try withTemporaryDirectory { directory in
            let store = try directory.store()
            let isolated = Settings(store: store, ignoreExternalChanges: true)
            let control = Settings(store: store)
            let isolatedChanged = track { _ = isolated.name }
            let controlChanged = track { _ = control.name }
            try sqlite3Upsert(directory.database, key: "app.name", text: "Shell")
            #expect(controlChanged.wait())
            #expect(!isolatedChanged.fired)
        }
    }

    @Test func observableOnlyIsObservableAndNotStored() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.isEditing }
            settings.isEditing = true
            #expect(changed.fired)
            #expect(settings.isEditing)
            #expect(try !storedKeys(directory.database).contains { $0.contains("isEditing") })
            #expect(Settings(store: try directory.store()).isEditing == false)
        }
    }

    @Test func ignoreIsNeitherObservableNorStored() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            let changed = track { _ = settings.scratch }
            settings.scratch = 42
            #expect(!changed.fired)
            #expect(settings.scratch == 42)
            #expect(try !storedKeys(directory.database).contains { $0.contains("scratch") })
        }
    }

    @Test func prefixAndDefaultsBackedNamesAreTheStoredKeys() throws {
        try withTemporaryDirectory { directory in
            let settings = Settings(store: try directory.store())
            settings.name = "Ada"
            settings.launchCount = 3
            #expect(try storedKeys(directory.database) == ["app.launch_count", "app.name"])
            #expect(try sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'app.launch_count';") == "3")
        }
    }

    @Test func prefixGivenToInitReplacesTheMacroPrefix() throws {
        try withTemporaryDirectory { directory in
            let store = try directory.store()
            let tenantA = Settings(store: store, prefix: "a.")
            let tenantB = Settings(store: store, prefix: "b.")
            tenantA.name = "Alice"
            tenantB.launchCount = 9
            #expect(try storedKeys(directory.database) == ["a.name", "b.launch_count"])
            #expect(tenantB.name == "Guest")
            // Observation follows the run-time key.
            let changed = track { _ = tenantA.name }
            try sqlite3Upsert(directory.database, key: "a.name", text: "Alicia")
            #expect(changed.wait())
            #expect(tenantA.name == "Alicia")
        }
    }

    @Test func observeFirstPersistsOnlyDefaultsBacked() throws {
        try withTemporaryDirectory { directory in
            let session = Session(store: try directory.store())
            let selectionChanged = track { _ = session.selection }
            session.user = "ada"
            session.logins = 2
            session.selection = 4
            #expect(selectionChanged.fired)
            #expect(try storedKeys(directory.database) == ["session.login_count", "session.user"])
            let reopened = Session(store: try directory.store())
            #expect(reopened.user == "ada" && reopened.logins == 2 && reopened.selection == 3)
            let userChanged = track { _ = reopened.user }
            try sqlite3Upsert(directory.database, key: "session.user", text: "bob")
            #expect(userChanged.wait())
        }
    }

    @Test func autoInitFalseWithUserInitAndSubclass() throws {
        try withTemporaryDirectory { directory in
            let store = try directory.store()
            let object = CustomInitChild(id: 1, store: store)
            #expect(object.id == 1 && object.extra == 7)
            let changed = track { _ = object.title }
            object.title = "Report"
            #expect(changed.wait())
            #expect(try storedKeys(directory.database) == ["custom.title"])
            let other = CustomInit(id: 2, store: store)
            #expect(other.title == "Report")
            let external = track { _ = other.title }
            try sqlite3Upsert(directory.database, key: "custom.title", text: "Memo")
            #expect(external.wait())
            #expect(object.title == "Memo")
        }
    }

    @Test func nonFinalClassAndInheritedGeneratedInit() throws {
        try withTemporaryDirectory { directory in
            let derived = DerivedSettings(store: try directory.store())
            let changed = track { _ = derived.color }
            derived.color = "blue"
            #expect(changed.wait())
            #expect(derived.describe() == "color blue")
            #expect(BaseSettings(store: try directory.store()).color == "blue")
        }
    }
}

@Suite("@ObservableDefaults: values and observers", .requiresSQLiteShell)
struct ValueTests {
    @Test func everyKindOfValueRoundTrips() throws {
        try withTemporaryDirectory { directory in
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
            #expect(try sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'app.theme';") == "dark")

            // Setting an optional to nil removes the row and reads nil again.
            let changed = track { _ = reopened.profile }
            settings.profile = nil
            #expect(changed.wait())
            #expect(reopened.profile == nil)
            #expect(try !storedKeys(directory.database).contains("app.profile"))
        }
    }

    @Test func willSetAndDidSetRunAroundTheWrite() throws {
        try withTemporaryDirectory { directory in
            let settings = ObservedSettings(store: try directory.store())
            let changed = track { _ = settings.level }
            settings.level = 4
            #expect(changed.wait())
            #expect(settings.log == ["will 1->4", "did 1->4"])
            settings.log = []
            settings.level = 20   // didSet clamps it through the store
            #expect(settings.level == 10)
            #expect(settings.log == ["will 4->20", "did 4->20", "will 20->10", "did 20->10"])
            #expect(try sqlite3(directory.database, "SELECT value FROM defaults WHERE key = 'obs.level';") == "10")

            settings.log = []
            let modeChanged = track { _ = settings.mode }
            settings.mode = "busy"
            #expect(modeChanged.fired)
            #expect(settings.log == ["mode idle->busy"])
        }
    }
}
#endif
