import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that serves the macros declared in `SQLiteDefaultsObservable`.
@main
struct SQLiteDefaultsMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ObservableDefaultsMacro.self,
        DefaultsBackedMacro.self,
        ObservableOnlyMacro.self,
        IgnoreMacro.self,
    ]
}
