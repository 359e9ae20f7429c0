#if Observable
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Ignore`: a marker. `@ObservableDefaults` leaves a property so marked alone, and this
/// macro adds nothing.
public struct IgnoreMacro: PeerMacro {
    /// Nothing: the attribute only marks the property for `@ObservableDefaults`.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
#endif
