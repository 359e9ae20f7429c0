#if Observable
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ObservableOnly`: an observable, in-memory property of an `@ObservableDefaults` class,
/// shaped like an `@Observable` one: the value lives in a private peer (which keeps the
/// property's initializer and `willSet`/`didSet`), and the property's accessors report
/// reads and writes to the class's registrar.
///
/// ```swift
/// @ObservableOnly var isEditing = false
/// // becomes
/// var isEditing = false {
///     @storageRestrictions(initializes: _$isEditing) init(initialValue) { _$isEditing = initialValue }
///     get { _$defaultsStorage.access(self, \.isEditing); return _$isEditing }
///     set { _$defaultsStorage.withMutation(of: self, \.isEditing, from: _$isEditing, to: newValue) { _$isEditing = newValue } }
/// }
/// private var _$isEditing = false
/// ```
public struct ObservableOnlyMacro {
    static func expandable(_ declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext) -> PropertyModel? {
        PropertyModel.expandable(declaration, in: context) { _ in .observableOnly }
    }
}

extension ObservableOnlyMacro: AccessorMacro {
    /// The `init`, `get` and `set` that keep the value in the peer and report to the registrar.
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = expandable(declaration, in: context) else { return [] }
        let storage = ObservableDefaultsMacro.storageName
        let peer = property.peerName
        let keyPath = "\\.\(property.identifier.text)"
        return [
            """
            @storageRestrictions(initializes: \(raw: peer))
            init(initialValue) {
                \(raw: peer) = initialValue
            }
            """,
            """
            get {
                \(raw: storage).access(self, \(raw: keyPath))
                return \(raw: peer)
            }
            """,
            """
            set {
                \(raw: storage).withMutation(of: self, \(raw: keyPath), from: \(raw: peer), to: newValue) {
                    \(raw: peer) = newValue
                }
            }
            """,
        ]
    }
}

extension ObservableOnlyMacro: PeerMacro {
    /// The private stored peer; reports a use outside an `@ObservableDefaults` class.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard MacroOptions.checkInsideObservableDefaults(node, role: .observableOnly, in: context) else { return [] }
        guard let property = expandable(declaration, in: context) else { return [] }
        // The peer is the property itself, renamed and private, without attributes: it keeps
        // the type, the initializer and any willSet/didSet.
        let pattern = IdentifierPatternSyntax(identifier: .identifier(property.peerName))
        let binding = property.binding.trimmed.with(\.pattern, PatternSyntax(pattern))
        let storage = VariableDeclSyntax(
            modifiers: [DeclModifierSyntax(name: .keyword(.private))],
            bindingSpecifier: .keyword(.var),
            bindings: [binding]
        )
        return [DeclSyntax(storage)]
    }
}
#endif
