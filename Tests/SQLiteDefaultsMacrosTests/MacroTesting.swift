import SQLiteDefaultsMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, by the names the declarations in `SQLiteDefaultsObservable` give them.
let macroSpecs: [String: MacroSpec] = [
    "ObservableDefaults": MacroSpec(type: ObservableDefaultsMacro.self, conformances: ["Observable"]),
    "DefaultsBacked": MacroSpec(type: DefaultsBackedMacro.self),
    "ObservableOnly": MacroSpec(type: ObservableOnlyMacro.self),
    "Ignore": MacroSpec(type: IgnoreMacro.self),
]

/// `assertMacroExpansion` reporting through Swift Testing, at the caller's location.
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macroSpecs,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID,
                    filePath: failure.location.filePath,
                    line: failure.location.line,
                    column: failure.location.column
                )
            )
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
    )
}
