#if Observable
import Testing

/// Golden expansions: what the macros turn a class into, token for token.
@Suite("@ObservableDefaults expansion")
struct ExpansionTests {
    @Test func representativeClass() {
        assertExpansion(
            """
            @ObservableDefaults(prefix: "app.")
            final class Settings {
                var name = "Guest"
                @DefaultsBacked("launch_count") var launchCount = 0
                var profile: Profile?
                @ObservableOnly var isEditing = false
                @Ignore var scratch = 0
            }
            """,
            expandedSource: #"""
            final class Settings {
                var name {
                    get {
                        _$defaultsStorage.value(of: _$name, for: self, \.name)
                    }
                    set {
                        _$defaultsStorage.setValue(newValue, of: _$name, for: self, \.name)
                    }
                }

                private var _$name = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey($0 + "name", default: "Guest")
                }
                var launchCount {
                    get {
                        _$defaultsStorage.value(of: _$launchCount, for: self, \.launchCount)
                    }
                    set {
                        _$defaultsStorage.setValue(newValue, of: _$launchCount, for: self, \.launchCount)
                    }
                }

                private var _$launchCount = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey($0 + "launch_count", default: 0)
                }
                var profile: Profile? {
                    get {
                        _$defaultsStorage.value(of: _$profile, for: self, \.profile)
                    }
                    set {
                        _$defaultsStorage.setValue(newValue, of: _$profile, for: self, \.profile)
                    }
                }

                private var _$profile = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey<Profile?>($0 + "profile")
                }
                var isEditing {
                    @storageRestrictions(initializes: _$isEditing)
                    init(initialValue) {
                        _$isEditing = initialValue
                    }
                    get {
                        _$defaultsStorage.access(self, \.isEditing)
                        return _$isEditing
                    }
                    set {
                        _$defaultsStorage.withMutation(of: self, \.isEditing, from: _$isEditing, to: newValue) {
                            _$isEditing = newValue
                        }
                    }
                }

                private var _$isEditing = false
                var scratch = 0

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "app.") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "app.") {
                    _$name.resolve(prefix: prefix)
                    _$launchCount.resolve(prefix: prefix)
                    _$profile.resolve(prefix: prefix)
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                    if !ignoreExternalChanges {
                        _$defaultsStorage.observe(_$name, for: self, \.name)
                        _$defaultsStorage.observe(_$launchCount, for: self, \.launchCount)
                        _$defaultsStorage.observe(_$profile, for: self, \.profile)
                    }
                }
            }

            extension Settings: nonisolated Observation.Observable {
            }
            """#
        )
    }

    @Test func optionsShapeTheSetUpAndTheInit() {
        assertExpansion(
            """
            @ObservableDefaults(prefix: "session.", ignoreExternalChanges: true, observeFirst: true, autoInit: false)
            class Session {
                @DefaultsBacked var user: String = "nobody"
                var selection = 3
                @Ignore let id: Int

                init(id: Int, store: DefaultsStore) {
                    self.id = id
                    setUpDefaults(store: store)
                }
            }
            """,
            expandedSource: #"""
            class Session {
                var user: String {
                    get {
                        _$defaultsStorage.value(of: _$user, for: self, \.user)
                    }
                    set {
                        _$defaultsStorage.setValue(newValue, of: _$user, for: self, \.user)
                    }
                }

                private var _$user = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey<String>($0 + "user", default: "nobody")
                }
                var selection {
                    @storageRestrictions(initializes: _$selection)
                    init(initialValue) {
                        _$selection = initialValue
                    }
                    get {
                        _$defaultsStorage.access(self, \.selection)
                        return _$selection
                    }
                    set {
                        _$defaultsStorage.withMutation(of: self, \.selection, from: _$selection, to: newValue) {
                            _$selection = newValue
                        }
                    }
                }

                private var _$selection = 3
                let id: Int

                init(id: Int, store: DefaultsStore) {
                    self.id = id
                    setUpDefaults(store: store)
                }

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Session")

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = true, prefix: Swift.String = "session.") {
                    _$user.resolve(prefix: prefix)
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                    if !ignoreExternalChanges {
                        _$defaultsStorage.observe(_$user, for: self, \.user)
                    }
                }
            }

            extension Session: nonisolated Observation.Observable {
            }
            """#
        )
    }

    @Test(.disabled(if: harnessBefore602, "swift-syntax 600's harness keeps observers beside generated accessors; the compiler folds them in (ObservableDefaultsTests.willSetAndDidSetRunAroundTheWrite)"))
    func observersRunAroundTheStoreWrite() {
        assertExpansion(
            """
            @ObservableDefaults
            final class Audio {
                var volume: Double = 0.5 {
                    willSet(next) { print("to", next) }
                    didSet { print("from", oldValue) }
                }
                var muted = false {
                    didSet { print("toggled") }
                }
                @ObservableOnly var level = 1 {
                    didSet { print(oldValue) }
                }
            }
            """,
            expandedSource: #"""
            final class Audio {
                var volume: Double {
                    willSet(next) { print("to", next) }
                    didSet { print("from", oldValue) }
                    get {
                        _$defaultsStorage.value(of: _$volume, for: self, \.volume)
                    }

                    set {
                        let oldValue = _$defaultsStorage.value(of: _$volume)
                        _ = { () -> Void in
                            let next = newValue
                            print("to", next)
                        }()
                        _$defaultsStorage.setValue(newValue, of: _$volume, for: self, \.volume)
                        _ = { () -> Void in
                            print("from", oldValue)
                        }()
                    }
                }

                private var _$volume = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey<Double>($0 + "volume", default: 0.5)
                }
                var muted {
                    didSet { print("toggled") }
                    get {
                        _$defaultsStorage.value(of: _$muted, for: self, \.muted)
                    }

                    set {
                        _$defaultsStorage.setValue(newValue, of: _$muted, for: self, \.muted)
                        _ = { () -> Void in
                            print("toggled")
                        }()
                    }
                }

                private var _$muted = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey($0 + "muted", default: false)
                }
                var level {
                    didSet { print(oldValue) }
                    @storageRestrictions(initializes: _$level)
                    init(initialValue) {
                        _$level = initialValue
                    }

                    get {
                        _$defaultsStorage.access(self, \.level)
                        return _$level
                    }

                    set {
                        _$defaultsStorage.withMutation(of: self, \.level, from: _$level, to: newValue) {
                            _$level = newValue
                        }
                    }
                }

                private var _$level = 1 {
                        didSet {
                            print(oldValue)
                        }
                    }

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Audio")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    _$volume.resolve(prefix: prefix)
                    _$muted.resolve(prefix: prefix)
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                    if !ignoreExternalChanges {
                        _$defaultsStorage.observe(_$volume, for: self, \.volume)
                        _$defaultsStorage.observe(_$muted, for: self, \.muted)
                    }
                }
            }

            extension Audio: nonisolated Observation.Observable {
            }
            """#
        )
    }

    @Test func publicClassGetsAPublicInitAndAvailability() {
        assertExpansion(
            """
            @available(macOS 15, *)
            @ObservableDefaults(prefix: "pub.")
            public final class Shared {
                public var theme: Theme = .light
                public var tags: Set<String> = []
                static var shared = 0
                var computed: Int { 1 }
                lazy var cache = [Int]()
            }
            """,
            expandedSource: #"""
            @available(macOS 15, *)
            public final class Shared {
                public var theme: Theme {
                    get {
                        _$defaultsStorage.value(of: _$theme, for: self, \.theme)
                    }
                    set {
                        _$defaultsStorage.setValue(newValue, of: _$theme, for: self, \.theme)
                    }
                }

                private var _$theme = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey<Theme>($0 + "theme", default: .light)
                }
                public var tags: Set<String> {
                    get {
                        _$defaultsStorage.value(of: _$tags, for: self, \.tags)
                    }
                    set {
                        _$defaultsStorage.setValue(newValue, of: _$tags, for: self, \.tags)
                    }
                }

                private var _$tags = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey<Set<String>>($0 + "tags", default: [])
                }
                static var shared = 0
                var computed: Int { 1 }
                lazy var cache = [Int]()

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Shared")

                public init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "pub.") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "pub.") {
                    _$theme.resolve(prefix: prefix)
                    _$tags.resolve(prefix: prefix)
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                    if !ignoreExternalChanges {
                        _$defaultsStorage.observe(_$theme, for: self, \.theme)
                        _$defaultsStorage.observe(_$tags, for: self, \.tags)
                    }
                }
            }

            @available(macOS 15, *)
            extension Shared: nonisolated Observation.Observable {
            }
            """#
        )
    }
}
#endif
