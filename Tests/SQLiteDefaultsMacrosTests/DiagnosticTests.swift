#if Observable
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Each misuse gets one error at the right place, with a fix-it where one is obvious.
@Suite("@ObservableDefaults diagnostics")
struct DiagnosticTests {
    @Test func structGetsAFixIt() {
        assertExpansion(
            """
            @ObservableDefaults
            struct Settings {
                var name = "Guest"
            }
            """,
            expandedSource: #"""
            struct Settings {
                var name = "Guest"
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: "'@ObservableDefaults' can only be applied to a class, not to a struct", line: 1, column: 1, fixIts: [FixItSpec(message: "Replace 'struct' with 'final class'")])
            ],
            applyFixIts: ["Replace 'struct' with 'final class'"],
            fixedSource: """
                @ObservableDefaults
                final class Settings {
                    var name = "Guest"
                }
                """
        )
    }

    @Test func enumAndActorAreRefused() {
        assertExpansion(
            """
            @ObservableDefaults
            enum Mode {
                case on
            }
            """,
            expandedSource: #"""
            enum Mode {
                case on
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: "'@ObservableDefaults' can only be applied to a class, not to an enum", line: 1, column: 1)
            ]
        )
        assertExpansion(
            """
            @ObservableDefaults
            actor Settings {
                var name = "Guest"
            }
            """,
            expandedSource: #"""
            actor Settings {
                var name = "Guest"
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: "'@ObservableDefaults' can only be applied to a class, not to an actor", line: 1, column: 1, fixIts: [FixItSpec(message: "Replace 'actor' with 'final class'")])
            ]
        )
    }

    @Test func letPropertyOffersVarOrIgnore() {
        let source = """
            @ObservableDefaults
            final class Settings {
                let name = "Guest"
            }
            """
        let expanded = #"""
            final class Settings {
                let name = "Guest"

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                }
            }

            extension Settings: nonisolated Observation.Observable {
            }
            """#
        let diagnostic = DiagnosticSpec(
            message: "'let' property 'name' cannot be persisted or observed; make it a 'var', or mark it '@Ignore'",
            line: 3,
            column: 5,
            fixIts: [FixItSpec(message: "Replace 'let' with 'var'"), FixItSpec(message: "Mark the property '@Ignore'")]
        )
        assertExpansion(
            source,
            expandedSource: expanded,
            diagnostics: [diagnostic],
            applyFixIts: ["Replace 'let' with 'var'"],
            fixedSource: """
                @ObservableDefaults
                final class Settings {
                    var name = "Guest"
                }
                """
        )
        assertExpansion(
            source,
            expandedSource: expanded,
            diagnostics: [diagnostic],
            applyFixIts: ["Mark the property '@Ignore'"],
            fixedSource: """
                @ObservableDefaults
                final class Settings {
                    @Ignore let name = "Guest"
                }
                """
        )
    }

    @Test func persistedPropertyWithoutDefault() {
        assertExpansion(
            """
            @ObservableDefaults
            final class Settings {
                var name: String
                var window: Window
            }
            """,
            expandedSource: #"""
            final class Settings {
                var name: String
                var window: Window

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                }
            }

            extension Settings: nonisolated Observation.Observable {
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: "persisted property 'name' needs a default value: it is what reads return until a value is stored", line: 3, column: 9, fixIts: [FixItSpec(message: #"Add the default value '""'"#)]),
                DiagnosticSpec(message: "persisted property 'window' needs a default value: it is what reads return until a value is stored", line: 4, column: 9, fixIts: [FixItSpec(message: "Add a default value")]),
            ],
            applyFixIts: ["Add the default value '\"\"'"],
            fixedSource: """
                @ObservableDefaults
                final class Settings {
                    var name: String = ""
                    var window: Window
                }
                """
        )
    }

    @Test func observableOnlyAndIgnoredWithoutDefaultNeedOneForTheGeneratedInit() {
        assertExpansion(
            """
            @ObservableDefaults
            final class Settings {
                @ObservableOnly var count: Int
                @Ignore var flag: Bool
                @ObservableOnly var note: String?
            }
            """,
            expandedSource: #"""
            final class Settings {
                var count: Int
                var flag: Bool
                var note: String? {
                    @storageRestrictions(initializes: _$note)
                    init(initialValue) {
                        _$note = initialValue
                    }
                    get {
                        _$defaultsStorage.access(self, \.note)
                        return _$note
                    }
                    set {
                        _$defaultsStorage.withMutation(of: self, \.note, from: _$note, to: newValue) {
                            _$note = newValue
                        }
                    }
                }

                private var _$note: String?

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                }
            }

            extension Settings: nonisolated Observation.Observable {
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: "property 'count' needs a default value: the generated 'init(store:ignoreExternalChanges:prefix:)' cannot set it (or use 'autoInit: false' and write your own init)", line: 3, column: 25, fixIts: [FixItSpec(message: "Add the default value '0'")]),
                DiagnosticSpec(message: "property 'flag' needs a default value: the generated 'init(store:ignoreExternalChanges:prefix:)' cannot set it (or use 'autoInit: false' and write your own init)", line: 4, column: 17, fixIts: [FixItSpec(message: "Add the default value 'false'")]),
            ]
        )
    }

    @Test func propertyWhoseTypeCannotBeInferred() {
        assertExpansion(
            """
            @ObservableDefaults
            final class Settings {
                var profile = nil
                var recent = []
                var theme = .light
            }
            """,
            expandedSource: #"""
            final class Settings {
                var profile = nil
                var recent = []
                var theme = .light

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                }
            }

            extension Settings: nonisolated Observation.Observable {
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: "property 'profile' needs an explicit type: its key's value type cannot be inferred from 'nil'", line: 3, column: 19),
                DiagnosticSpec(message: "property 'recent' needs an explicit type: its key's value type cannot be inferred from '[]'", line: 4, column: 18),
                DiagnosticSpec(message: "property 'theme' needs an explicit type: its key's value type cannot be inferred from '.light'", line: 5, column: 17),
            ]
        )
    }

    @Test func collidingKeys() {
        assertExpansion(
            """
            @ObservableDefaults(prefix: "app.")
            final class Settings {
                var name = "Guest"
                @DefaultsBacked("name") var displayName = "Guest"
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
                var displayName {
                    get {
                        _$defaultsStorage.value(of: _$displayName, for: self, \.displayName)
                    }
                    set {
                        _$defaultsStorage.setValue(newValue, of: _$displayName, for: self, \.displayName)
                    }
                }

                private var _$displayName = SQLiteDefaultsObservable.ObservableDefaultsKey {
                    SQLiteDefaults.DefaultsKey($0 + "name", default: "Guest")
                }

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "app.") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "app.") {
                    _$name.resolve(prefix: prefix)
                    _$displayName.resolve(prefix: prefix)
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                    if !ignoreExternalChanges {
                        _$defaultsStorage.observe(_$name, for: self, \.name)
                        _$defaultsStorage.observe(_$displayName, for: self, \.displayName)
                    }
                }
            }

            extension Settings: nonisolated Observation.Observable {
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: #"property 'displayName' uses the key "app.name", which property 'name' already uses"#, line: 4, column: 21, notes: [NoteSpec(message: "property 'name' uses the key here", line: 3, column: 9)])
            ]
        )
    }

    @Test func defaultsBackedOnComputedOrStaticProperty() {
        assertExpansion(
            """
            @ObservableDefaults
            final class Settings {
                @DefaultsBacked var total: Int { 3 }
                @DefaultsBacked static var shared = 1
            }
            """,
            expandedSource: #"""
            final class Settings {
                var total: Int { 3 }
                static var shared = 1

                private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")

                init(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    setUpDefaults(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }

                func setUpDefaults(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = false, prefix: Swift.String = "") {
                    _$defaultsStorage.bind(to: store, observesStore: !ignoreExternalChanges)
                }
            }

            extension Settings: nonisolated Observation.Observable {
            }
            """#,
            diagnostics: [
                DiagnosticSpec(message: "'@DefaultsBacked' requires a stored property; 'total' is computed", line: 3, column: 5, fixIts: [FixItSpec(message: "Remove '@DefaultsBacked'")]),
                DiagnosticSpec(message: "'@DefaultsBacked' requires an instance property; 'shared' is static", line: 4, column: 5, fixIts: [FixItSpec(message: "Remove '@DefaultsBacked'")]),
            ],
            applyFixIts: ["Remove '@DefaultsBacked'"],
            fixedSource: """
                @ObservableDefaults
                final class Settings {
                    var total: Int { 3 }
                    static var shared = 1
                }
                """
        )
    }
}
#endif
