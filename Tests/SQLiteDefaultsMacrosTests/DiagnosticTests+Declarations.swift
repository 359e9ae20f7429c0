#if Observable
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Diagnostics of keys, options and how roles combine on one declaration.
extension DiagnosticTests {
    @Test func badKeysAndOptions() {
        assertExpansion(
            """
            @ObservableDefaults(prefix: base, autoInit: yes)
            final class Settings {
                @DefaultsBacked("") var a = 1
                @DefaultsBacked(someKey) var b = 2
            }
            """,
            expandedSource: #"""
            final class Settings {
                var a = 1
                var b = 2

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
                DiagnosticSpec(message: "'prefix:' must be a string literal", line: 1, column: 29),
                DiagnosticSpec(message: "'autoInit:' must be a 'true' or 'false' literal", line: 1, column: 45),
                DiagnosticSpec(message: "the key of property 'a' must not be empty", line: 3, column: 21, fixIts: [FixItSpec(message: "Remove the empty key to use the property's name")]),
                DiagnosticSpec(message: "the key given to '@DefaultsBacked' must be a string literal", line: 4, column: 21),
            ]
        )
    }

    @Test func oneRoleAndOnePropertyPerDeclaration() {
        assertExpansion(
            """
            @ObservableDefaults
            final class Settings {
                @DefaultsBacked @Ignore var a = 1
                var b = 2, c = 3
            }
            """,
            expandedSource: #"""
            final class Settings {
                var a = 1
                var b = 2, c = 3

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
                DiagnosticSpec(message: "property 'a' has '@DefaultsBacked' and '@Ignore'; use only one", line: 3, column: 21, fixIts: [FixItSpec(message: "Remove '@Ignore'")]),
                DiagnosticSpec(message: "'@ObservableDefaults' needs one property per 'var'; declare each property separately", line: 4, column: 9),
            ],
            applyFixIts: ["Remove '@Ignore'"],
            fixedSource: """
                @ObservableDefaults
                final class Settings {
                    @DefaultsBacked var a = 1
                    var b = 2, c = 3
                }
                """
        )
    }

    @Test func propertyMacrosOutsideTheClassMacro() {
        assertExpansion(
            """
            final class Plain {
                @DefaultsBacked var a = 1
                @ObservableOnly var b = 2
            }
            """,
            expandedSource: """
                final class Plain {
                    var a = 1
                    var b = 2
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "'@DefaultsBacked' only works on a property of an '@ObservableDefaults' class", line: 2, column: 5),
                DiagnosticSpec(message: "'@ObservableOnly' only works on a property of an '@ObservableDefaults' class", line: 3, column: 5),
            ]
        )
    }
}
#endif
