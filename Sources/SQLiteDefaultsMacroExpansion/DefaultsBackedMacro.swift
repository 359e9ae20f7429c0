#if Observable
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@DefaultsBacked` / `@DefaultsBacked("key")`: turns a stored property of an
/// `@ObservableDefaults` class into a computed one that reads and writes the store.
///
/// ```swift
/// @DefaultsBacked("launch_count") var launchCount = 0
/// // becomes
/// var launchCount = 0 {
///     get { _$defaultsStorage.value(of: _$launchCount, for: self, \.launchCount) }
///     set { _$defaultsStorage.setValue(newValue, of: _$launchCount, for: self, \.launchCount) }
/// }
/// private var _$launchCount = SQLiteDefaultsObservable.ObservableDefaultsKey {
///     SQLiteDefaults.DefaultsKey($0 + "launch_count", default: 0)
/// }
/// ```
///
/// The initializer is copied into the key's recipe, so the key's value type is inferred
/// exactly as the property's is. `willSet`/`didSet` bodies run around the store write.
public struct DefaultsBackedMacro {
    /// The property, when it is one this macro expands (problems are reported by
    /// `@ObservableDefaults`, which sees the whole class).
    static func expandable(_ declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext) -> PropertyModel? {
        PropertyModel.expandable(declaration, in: context) { .persisted(key: $0.keySuffix ?? $0.name) }
    }
}

extension DefaultsBackedMacro: AccessorMacro {
    /// The `get` and `set` that read and write the store.
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = expandable(declaration, in: context) else { return [] }
        let storage = ObservableDefaultsMacro.storageName
        let peer = property.peerName
        let keyPath = "\\.\(property.identifier.text)"

        let getter: AccessorDeclSyntax = """
            get {
                \(raw: storage).value(of: \(raw: peer), for: self, \(raw: keyPath))
            }
            """

        var statements: [String] = []
        if let didSet = property.didSet, let body = didSet.body {
            let oldName = didSet.parameters?.name.text ?? "oldValue"
            if body.mentions(oldName) {
                statements.append("let \(oldName) = \(storage).value(of: \(peer))")
            }
        }
        if let willSet = property.willSet, let body = willSet.body {
            var lines: [String] = []
            if let newName = willSet.parameters?.name.text, newName != "newValue", body.mentions(newName) {
                lines.append("let \(newName) = newValue")
            }
            statements.append(immediatelyCalled(lines, body))
        }
        statements.append("\(storage).setValue(newValue, of: \(peer), for: self, \(keyPath))")
        if let didSet = property.didSet, let body = didSet.body {
            statements.append(immediatelyCalled([], body))
        }
        let setter: AccessorDeclSyntax = """
            set {
            \(raw: statements.joined(separator: "\n"))
            }
            """
        return [getter, setter]
    }

    /// An observer body as a closure called on the spot, so that a `return` inside it ends
    /// the observer, not the setter.
    private static func immediatelyCalled(_ prelude: [String], _ body: CodeBlockSyntax) -> String {
        let statements = (prelude + [body.statements.trimmedDescription]).joined(separator: "\n")
        return "_ = { () -> Void in\n\(statements)\n}()"
    }
}

extension DefaultsBackedMacro: PeerMacro {
    /// The peer holding the key recipe; reports a use outside an `@ObservableDefaults` class.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard MacroOptions.checkInsideObservableDefaults(node, role: .defaultsBacked, in: context) else { return [] }
        guard let property = expandable(declaration, in: context) else { return [] }
        let keyName = property.keyArgument ?? StringLiteralExprSyntax.literal(property.name)
        var keyType = "SQLiteDefaults.DefaultsKey"
        if let type = property.type {
            let valueType = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self).map { "\($0.wrappedType.trimmedDescription)?" }
                ?? type.trimmedDescription
            keyType += "<\(valueType)>"
        }
        let arguments: String
        if let initializer = property.initializer {
            arguments = "$0 + \(keyName.trimmedDescription), default: \(initializer.trimmedDescription)"
        } else {
            arguments = "$0 + \(keyName.trimmedDescription)"
        }
        return [
            """
            private var \(raw: property.peerName) = SQLiteDefaultsObservable.ObservableDefaultsKey {
                \(raw: keyType)(\(raw: arguments))
            }
            """
        ]
    }
}
#endif
