#if Observable
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacros

/// The arguments of `@ObservableDefaults(prefix:ignoreExternalChanges:observeFirst:autoInit:)`,
/// read from the attribute. Each must be a literal: the macro needs their values to check
/// keys for collisions and to decide which properties persist.
struct MacroOptions {
    static let attributeName = "ObservableDefaults"

    var prefix = ""
    var ignoreExternalChanges = false
    var observeFirst = false
    var autoInit = true

    /// Reads the options; a non-literal argument is reported through `diagnose` (when given)
    /// and its default is used.
    init(_ attribute: AttributeSyntax, diagnose: ((Diagnostic) -> Void)? = nil) {
        guard case .argumentList(let arguments) = attribute.arguments else { return }
        for argument in arguments {
            let label = argument.label?.text ?? ""
            switch label {
            case "prefix":
                if let literal = argument.expression.as(StringLiteralExprSyntax.self),
                    let value = literal.representedLiteralValue
                {
                    prefix = value
                } else {
                    diagnose?(Diagnostic(
                        node: argument.expression,
                        message: MacroDiagnostic.optionNotLiteral(label: label, expected: "a string")
                    ))
                }
            case "ignoreExternalChanges", "observeFirst", "autoInit":
                guard let literal = argument.expression.as(BooleanLiteralExprSyntax.self) else {
                    diagnose?(Diagnostic(
                        node: argument.expression,
                        message: MacroDiagnostic.optionNotLiteral(label: label, expected: "a 'true' or 'false'")
                    ))
                    continue
                }
                let value = literal.literal.tokenKind == .keyword(.true)
                switch label {
                case "ignoreExternalChanges": ignoreExternalChanges = value
                case "observeFirst": observeFirst = value
                default: autoInit = value
                }
            default:
                continue
            }
        }
    }

    /// The options of the `@ObservableDefaults` class that lexically encloses a property
    /// macro's declaration, or `nil` when there is none (the property macro is misplaced).
    static func enclosing(in context: some MacroExpansionContext) -> MacroOptions? {
        guard let first = context.lexicalContext.first,
            let classDecl = first.as(ClassDeclSyntax.self),
            let attribute = classDecl.attributes.attribute(named: attributeName)
        else { return nil }
        return MacroOptions(attribute)
    }

    /// Whether the closest enclosing type carries `@ObservableDefaults` at all (a class or
    /// not: on a struct, `@ObservableDefaults` itself already reported the mistake).
    static func isInsideObservableDefaults(_ context: some MacroExpansionContext) -> Bool {
        guard let first = context.lexicalContext.first,
            let group = first.asProtocol((any WithAttributesSyntax).self)
        else { return false }
        return group.attributes.attribute(named: attributeName) != nil
    }

    /// The shared first step of the per-property peer macros: a `role` attribute outside an
    /// `@ObservableDefaults` class is diagnosed on `node` and expands to nothing (`false`).
    static func checkInsideObservableDefaults(
        _ node: AttributeSyntax, role: RoleAttribute, in context: some MacroExpansionContext
    ) -> Bool {
        guard isInsideObservableDefaults(context) else {
            context.diagnose(Diagnostic(node: node, message: MacroDiagnostic.outsideObservableDefaults(attribute: role.rawValue)))
            return false
        }
        return true
    }
}
#endif
