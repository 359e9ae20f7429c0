import ChildProcesses
import DefaultsTestSupport
import Foundation
@testable import SQLiteDefaults
import Testing
import TestScheduling

// `@AppStorage`'s own shape (DESIGN "`@AppStorage`'s own shape"). None of these
// tests may touch the test process's own standard store (it would be the user's
// ~/.config/<test bundle>/defaults.sqlite): every access without a store runs inside
// `DefaultsStore.withStandard`, and the process-wide standard store is exercised in a child
// process with XDG_CONFIG_HOME and HOME pointing into a temporary directory.

/// Every form of the DESIGN example, plus one property per built-in value type; these lines
/// compiling without an ambiguity error is half of the test.
struct AppStorageSettings {
    @Default("username") var username = "Anonymous"          // key and default inline; the standard store
    @Default("theme") var theme: Theme = .light               // RawRepresentable
    @Default("selections") var selections = [3, 4, 5]         // collections, no RawRepresentable hack
    @Default("profile") var profile: Profile?                 // Optional: nil by default

    @Default("bool") var bool = true
    @Default("int") var int = 7
    @Default("int8") var int8: Int8 = -8
    @Default("int16") var int16: Int16 = -16
    @Default("int32") var int32: Int32 = -32
    @Default("int64") var int64: Int64 = -64
    @Default("uint") var uint: UInt = 1
    @Default("uint8") var uint8: UInt8 = 8
    @Default("uint16") var uint16: UInt16 = 16
    @Default("uint32") var uint32: UInt32 = 32
    @Default("uint64") var uint64 = UInt64.max
    @Default("double") var double = 2.5
    @Default("float") var float: Float = 1.5
    @Default("string") var string = "text"
    @Default("data") var data = Data([1, 2, 3])
    @Default("url") var url = URL(fileURLWithPath: "/srv/app")
    @Default("date") var date = Date(timeIntervalSince1970: 1_000)
    @Default("uuid") var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
    @Default("strings") var strings = ["a", "b"]
    @Default("urls") var urls: [URL] = []
    @Default("set") var set: Set<String> = ["x"]
    @Default("dictionary") var dictionary = ["one": 1]
    @Default("nested") var nested = [["a": [1.5]]]
    @Default("level") var level = Level.low                   // Int raw value
    @Default("mode") var mode = Mode.fast                     // RawRepresentable and Codable: raw value
    @Default("flavor") var flavor = Flavor.vanilla            // serializable and RawRepresentable
    @Default("celsius") var celsius = Celsius(degrees: 21)    // a custom DefaultsSerializable
    @Default("account") var account = Profile(name: "Guest", age: 0, joined: Date(timeIntervalSince1970: 0))  // Codable

    @Default("nickname") var nickname: String?                // optional serializable
    @Default("home") var home: URL? = URL(fileURLWithPath: "/home")
    @Default("lastTheme") var lastTheme: Theme?               // optional RawRepresentable
    @Default("lastMode") var lastMode: Mode?                  // optional RawRepresentable and Codable
    @Default("explicitNil") var explicitNil: Profile? = nil   // optional Codable, written out
    @Default("tags") var tags: [String]?                      // optional collection
    @Default("modeSet") var modeSet: Mode? = .safe            // optional RawRepresentable and Codable, with a default
    @Default("modeNil") var modeNil: Mode? = nil              // the same, nil written out
    @Default("level?") var optionalLevel: Level? = .high      // optional Int raw value, with a default

    @Default(.name) var typedName                             // a typed key, the standard store
}

/// `@Default("launches", store: store) var launches = 0`.
struct StoreNamingSettings {
    @Default<Int> var launches: Int
    @Default<Profile?> var profile: Profile?
    init(store: DefaultsStore) {
        _launches = Default(wrappedValue: 0, "launches", store: store)
        _profile = Default("profile", store: store)
    }
}

/// Declared centrally, as `AppStorage(wrappedValue:_:)` is.
enum AppStorageConfiguration {
    static let name = Default(wrappedValue: "fatbobman", "name")
    static let ports = Default(wrappedValue: [8080, 8443], "ports")
    static let mode = Default(wrappedValue: Mode.safe, "central.mode")
    static let optionalMode = Default<Mode?>(wrappedValue: nil, "central.optionalMode")
}

/// Declared once for the whole test process, outside every `withStandard` block: each access
/// must find the standard store of the task that makes it.
let processWideSettings = AppStorageSettings()

@Suite("@AppStorage's shape: @Default(\"key\"), DefaultsStore.standard, withStandard", .offThePool)
struct AppStorageShapeTests {
    @Test func everyFormReadsItsDefaultsFromTheScopedStandardStore() throws {
        let store = try DefaultsStore.inMemory()
        try DefaultsStore.withStandard(store) {
            let settings = AppStorageSettings()
            #expect(settings.username == "Anonymous")
            #expect(settings.theme == .light)
            #expect(settings.selections == [3, 4, 5])
            #expect(settings.profile == nil)
            #expect(settings.bool && settings.int == 7 && settings.int8 == -8 && settings.int16 == -16)
            #expect(settings.int32 == -32 && settings.int64 == -64 && settings.uint == 1 && settings.uint8 == 8)
            #expect(settings.uint16 == 16 && settings.uint32 == 32 && settings.uint64 == .max)
            #expect(settings.double == 2.5 && settings.float == 1.5 && settings.string == "text")
            #expect(settings.data == Data([1, 2, 3]) && settings.url.path == "/srv/app")
            #expect(settings.date == Date(timeIntervalSince1970: 1_000))
            #expect(settings.uuid.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            #expect(settings.strings == ["a", "b"] && settings.urls.isEmpty && settings.set == ["x"])
            #expect(settings.dictionary == ["one": 1] && settings.nested == [["a": [1.5]]])
            #expect(settings.level == .low && settings.mode == .fast && settings.flavor == .vanilla)
            #expect(settings.celsius == Celsius(degrees: 21) && settings.account.name == "Guest")
            #expect(settings.nickname == nil && settings.home?.path == "/home" && settings.lastTheme == nil)
            #expect(settings.lastMode == nil && settings.explicitNil == nil && settings.tags == nil)
            #expect(settings.typedName == "Guest")
            let rows = try store.entries()
            #expect(rows.isEmpty, "reading a default writes nothing")
            #expect(settings.$username.store === store)
        }
    }

    @Test func everyFormWritesAndReadsBackThroughTheStore() throws {
        let store = try DefaultsStore.inMemory()
        try DefaultsStore.withStandard(store) {
            let settings = AppStorageSettings()
            let joined = Date(timeIntervalSince1970: 1_700_000_000.25)
            settings.username = "Ada"
            settings.theme = .dark
            settings.selections.append(6)
            settings.profile = Profile(name: "Ada", age: 36, joined: joined)
            settings.bool = false
            settings.int += 1
            settings.int8 = .min
            settings.uint64 = .max - 1
            settings.double = -0.5
            settings.float = 3.25
            settings.data = Data()
            settings.url = URL(fileURLWithPath: "/tmp/x y")
            settings.date = joined
            settings.strings = []
            settings.urls = [URL(fileURLWithPath: "/a")]
            settings.set.insert("y")
            settings.dictionary["two"] = 2
            settings.level = .high
            settings.mode = .safe
            settings.flavor = .mint
            settings.celsius = Celsius(degrees: -40)
            settings.account.age = 5
            settings.nickname = "ada"
            settings.home = nil
            settings.lastTheme = .dark
            settings.lastMode = .fast
            settings.explicitNil = Profile(name: "B", age: 1, joined: joined)
            settings.tags = ["t"]
            settings.typedName = "Typed"

            settings.modeSet = .fast
            settings.modeNil = .safe
            settings.optionalLevel = .low

            let again = AppStorageSettings()   // a second declaration of the same keys
            #expect(again.username == "Ada" && again.theme == .dark && again.selections == [3, 4, 5, 6])
            #expect(again.profile == Profile(name: "Ada", age: 36, joined: joined))
            #expect(!again.bool && again.int == 8 && again.int8 == .min && again.uint64 == .max - 1)
            #expect(again.double == -0.5 && again.float == 3.25 && again.data.isEmpty)
            #expect(again.url.path == "/tmp/x y" && again.date == joined && again.strings.isEmpty)
            #expect(again.urls.map(\.path) == ["/a"] && again.set == ["x", "y"])
            #expect(again.dictionary == ["one": 1, "two": 2] && again.level == .high && again.mode == .safe)
            #expect(again.flavor == .mint && again.celsius == Celsius(degrees: -40) && again.account.age == 5)
            #expect(again.nickname == "ada" && again.home?.path == "/home" && again.lastTheme == .dark)
            #expect(again.lastMode == .fast && again.explicitNil?.name == "B" && again.tags == ["t"])
            #expect(store[.name] == "Typed")

            // Coded as DESIGN says: serializable first, raw value over Codable, JSON for Codable.
            let rows = Dictionary(uniqueKeysWithValues: try store.entries().map { ($0.key, $0.value) })
            #expect(rows["username"] == .text("Ada"))
            #expect(rows["theme"] == .text("dark"))
            #expect(rows["selections"] == .text("[3,4,5,6]"))
            #expect(rows["uint64"] == .text(String(UInt64.max - 1)), "above Int64.max: decimal text")
            #expect(rows["level"] == .integer(2))
            #expect(rows["mode"] == .text("safe"), "RawRepresentable and Codable is stored as its raw value")
            #expect(rows["lastMode"] == .text("fast"))
            #expect(rows["lastTheme"] == .text("dark"))
            #expect(rows["modeSet"] == .text("fast"), "an optional with an initializer picks the raw value too")
            #expect(rows["modeNil"] == .text("safe"))
            #expect(rows["level?"] == .integer(1))
            #expect(again.modeSet == .fast && again.modeNil == .safe && again.optionalLevel == .low)
            #expect(rows["flavor"] == .text("mint"))
            #expect(rows["celsius"] == .real(-40))
            if case .text(let json)? = rows["profile"] {
                #expect(json.contains("\"name\":\"Ada\""))
            } else {
                Issue.record("a Codable value is JSON text, not \(String(describing: rows["profile"]))")
            }
            #expect(rows["home"] == nil, "nil removes the row, so the default comes back, as with DefaultsKey")
        }
    }

    @Test func settingAnOptionalToNilRemovesItsRowWhateverTheCoding() throws {
        let store = try DefaultsStore.inMemory()
        try DefaultsStore.withStandard(store) {
            let settings = AppStorageSettings()
            let joined = Date(timeIntervalSince1970: 0)
            settings.profile = Profile(name: "A", age: 1, joined: joined)
            settings.explicitNil = Profile(name: "B", age: 2, joined: joined)
            settings.nickname = "n"
            settings.lastTheme = .dark
            settings.lastMode = .safe
            settings.tags = ["t"]
            settings.modeNil = .fast
            let stored = try store.keys()
            #expect(stored.count == 7)
            settings.profile = nil
            settings.explicitNil = nil
            settings.nickname = nil
            settings.lastTheme = nil
            settings.lastMode = nil
            settings.tags = nil
            settings.modeNil = nil
            let left = try store.keys()
            #expect(left.isEmpty)
            settings.modeSet = nil
            #expect(settings.modeSet == .safe, "nil removes the row: the declared default comes back")
        }
    }

    @Test func aNamedStoreIsUsedWhateverTheStandardStoreIs() throws {
        let named = try DefaultsStore.inMemory()
        let scoped = try DefaultsStore.inMemory()
        @Default("launches", store: named) var launches = 0
        @Default("profile", store: named) var profile: Profile?
        let settings = StoreNamingSettings(store: named)
        DefaultsStore.withStandard(scoped) {
            launches += 1
            settings.launches += 1
            profile = Profile(name: "P", age: 3, joined: Date(timeIntervalSince1970: 0))
            #expect(settings.profile?.name == "P")
            #expect($launches.store === named)
        }
        #expect(named[DefaultsKey<Int>("launches", default: 0)] == 2)
        #expect(try scoped.keys().isEmpty)
        // The typed-key form with a store still works as before.
        @Default(.count, store: named) var count
        count = 9
        #expect(named[.count] == 9)
    }

    @Test func aCentralDeclarationReadsAndWritesTheStandardStore() throws {
        let store = try DefaultsStore.inMemory()
        DefaultsStore.withStandard(store) {
            #expect(AppStorageConfiguration.name.wrappedValue == "fatbobman")
            #expect(AppStorageConfiguration.ports.wrappedValue == [8080, 8443])
            AppStorageConfiguration.name.wrappedValue = "Ada"
            AppStorageConfiguration.ports.wrappedValue.append(9000)
            AppStorageConfiguration.mode.wrappedValue = .fast
            #expect(AppStorageConfiguration.optionalMode.wrappedValue == nil)
            AppStorageConfiguration.optionalMode.wrappedValue = .safe
            #expect(AppStorageConfiguration.name.key.name == "name")
        }
        #expect(store[DefaultsKey<String>("name", default: "")] == "Ada")
        #expect(store[DefaultsKey<[Int]>("ports", default: [])] == [8080, 8443, 9000])
        #expect(store[DefaultsKey<Mode>("central.mode", default: .safe)] == .fast)
        #expect(try store.entries().first { $0.key == "central.mode" }?.value == .text("fast"))
        #expect(try store.entries().first { $0.key == "central.optionalMode" }?.value == .text("safe"))
    }

    @Test func theProjectedValueObservesTheKey() async throws {
        let store = try DefaultsStore.inMemory()
        try await DefaultsStore.withStandard(store) {
            let settings = AppStorageSettings()
            var updates = settings.$username.updates().makeAsyncIterator()
            #expect(await updates.next() == "Anonymous")
            let seen = Collected<String>()
            let token = settings.$username.observe { seen.append($0.newValue) }
            settings.username = "Ada"
            #expect(await updates.next() == "Ada")
            #expect(await seen.waitAsync { $0 == ["Ada"] })
            try await store.set("Bob", for: DefaultsKey<String>("username", default: ""))
            #expect(await updates.next() == "Bob")
            #expect(await seen.waitAsync { $0 == ["Ada", "Bob"] })
            token.cancel()
        }
    }

    @Test func propertiesDeclaredOutsideResolveTheStoreAtEachAccess() async throws {
        let first = try DefaultsStore.inMemory()
        let second = try DefaultsStore.inMemory()
        @Default("shape.count") var count = 0                 // declared outside both blocks
        DefaultsStore.withStandard(first) { count = 1 }
        DefaultsStore.withStandard(second) { count += 10 }
        #expect(first[DefaultsKey<Int>("shape.count", default: 0)] == 1)
        #expect(second[DefaultsKey<Int>("shape.count", default: 0)] == 10)
        DefaultsStore.withStandard(first) {
            #expect(count == 1)
            #expect(processWideSettings.username == "Anonymous")
            processWideSettings.username = "first"
        }
        #expect(first[DefaultsKey<String>("username", default: "")] == "first")
        #expect(!second.contains(DefaultsKey<String>("username", default: "")))
    }

    @Test func scopesNestAndReachTheTasksTheBlockCreates() async throws {
        let outer = try DefaultsStore.inMemory()
        let inner = try DefaultsStore.inMemory()
        try await DefaultsStore.withStandard(outer) {
            #expect(DefaultsStore.standard === outer)
            DefaultsStore.withStandard(inner) {
                #expect(DefaultsStore.standard === inner)
            }
            #expect(DefaultsStore.standard === outer)
            async let child = DefaultsStore.standard
            #expect(await child === outer)
            let unstructured = Task { DefaultsStore.standard }
            #expect(await unstructured.value === outer)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        await DefaultsStore.withStandard(index.isMultiple(of: 2) ? inner : outer) {
                            @Default("group.\(index)") var value = 0
                            value = index + 1
                            await Task.yield()
                            #expect(value == index + 1)
                        }
                    }
                }
                try await group.waitForAll()
            }
            await #expect(Set(try inner.keys()) == ["group.0", "group.2"])
            await #expect(Set(try outer.keys()) == ["group.1", "group.3"])
        }
    }

    @Test func aThrownErrorComesOutUnchangedAndEndsTheScope() throws {
        struct Marker: Error {}
        let store = try DefaultsStore.inMemory()
        #expect(throws: Marker.self) {
            try DefaultsStore.withStandard(store) {
                @Default("before.throw") var value = 0
                value = 1
                throw Marker()
            }
        }
        #expect(store[DefaultsKey<Int>("before.throw", default: 0)] == 1)
        let returned = DefaultsStore.withStandard(store) { 42 }
        #expect(returned == 42)
    }

    @Test func theExecutableNameBecomesOnePathComponent() {
        #expect(DefaultsStore.applicationName(from: "/usr/local/bin/myserver") == "myserver")
        #expect(DefaultsStore.applicationName(from: "myserver") == "myserver")
        #expect(DefaultsStore.applicationName(from: "./build/debug/tool/") == "tool")
        #expect(DefaultsStore.applicationName(from: " spaced name \n") == "spaced name")
        #expect(DefaultsStore.applicationName(from: "a\0b") == "a_b")
        #expect(DefaultsStore.applicationName(from: "") == "SQLiteDefaults")
        #expect(DefaultsStore.applicationName(from: "/") == "SQLiteDefaults")
        #expect(DefaultsStore.applicationName(from: "/x/..") == "SQLiteDefaults")
        #expect(DefaultsStore.applicationName(from: ".") == "SQLiteDefaults")
        #expect(DefaultsStore.applicationName(from: "dé.app@1") == "dé.app@1")
        #expect(!DefaultsStore.standardName.isEmpty && !DefaultsStore.standardName.contains("/"))
        #expect(throws: Never.self) { try DefaultsStore.standardPath(name: DefaultsStore.standardName) }
    }

    @Test func anUnopenableLocationGivesAStandInWithTheFailureReported() throws {
        let directory = try TemporaryDirectory()
        let notADirectory = directory.path + "/file"
        #expect(FileManager.default.createFile(atPath: notADirectory, contents: Data("x".utf8)))
        // The in-process half of the fallback (the process-wide half runs in a child below);
        // the path is absolute, so the environment is not consulted.
        let standIn = DefaultsStore.openStandard(location: notADirectory + "/app/defaults.sqlite")
        #expect(standIn.path == nil)
        let failure = try #require(standIn.lastReportedError)
        #expect(failure.code == .cannotOpen)
        #expect(failure.message.contains(notADirectory))
        #expect(failure.path == notADirectory + "/app/defaults.sqlite")
        @Default("k", store: standIn) var k = 1
        #expect(k == 1)
        k = 2
        #expect(k == 2)
    }
}
