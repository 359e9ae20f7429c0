#if Observable
import SQLiteDefaultsMacroExpansion
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
#else
/// Built without the Observable trait (no swift-syntax): the macro target must still link.
@main
enum SQLiteDefaultsMacrosPlugin {
    static func main() {}
}
#endif
