#if Observable
import SQLiteDefaultsMacroExpansion
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

/// Whether the test harness is swift-syntax 600 or 601, the low end of the macro's range (CI runs
/// these tests there: Scripts/consumers.sh). Two things its *test harness* does differently from
/// the compiler, which expands the same macro correctly (the behaviour tests in
/// SQLiteDefaultsObservableTests pass there):
/// - its parser predates `nonisolated` conformances (SE-0449, parsed from 602), so it reports the
///   generated `extension T: nonisolated Observation.Observable` as a syntax error;
/// - its expansion of an accessor macro keeps a property's `willSet`/`didSet` and initializer
///   beside the generated accessors instead of folding them in.
#if canImport(SwiftSyntax602)
let harnessBefore602 = false
#else
let harnessBefore602 = true
#endif

/// Whether a harness failure is only the first difference above, which says nothing about the
/// macro: every syntax error it lists is the `nonisolated` conformance.
func isOnlyNonisolatedConformanceParse(_ message: String) -> Bool {
    guard harnessBefore602, message.hasPrefix("Expanded source should not contain any syntax errors") else {
        return false
    }
    let errors = message.ranges(of: "error: ").count
    let conformances = message.ranges(of: "error: unexpected code 'Observation.Observable' in extension").count
    return errors > 0 && errors == conformances
}

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
            if isOnlyNonisolatedConformanceParse(failure.message) { return }
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
#endif
