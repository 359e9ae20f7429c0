#if Observable
import SQLiteDefaultsMacroExpansion
import SwiftSyntax
import SwiftSyntaxMacros

// The macros as the compiler finds them: `#externalMacro(module: "SQLiteDefaultsMacros", type:
// "ObservableDefaultsMacro")` asks this plugin for a type of that module-qualified name, so each
// macro is declared here and forwards every role to its expansion in
// SQLiteDefaultsMacroExpansion. The expansions live in a library target, not here, so that the
// macro's tests can link them without depending on a macro target: a test target that depends on
// one makes SwiftPM build the whole test product, and everything it depends on, a second time
// for the host (every module twice in `swift build --build-tests`).

/// `@ObservableDefaults` (see `SQLiteDefaultsMacroExpansion.ObservableDefaultsMacro`).
public struct ObservableDefaultsMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    typealias Expansion = SQLiteDefaultsMacroExpansion.ObservableDefaultsMacro

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Expansion.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        try Expansion.expansion(of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try Expansion.expansion(of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }
}

/// `@DefaultsBacked` (see `SQLiteDefaultsMacroExpansion.DefaultsBackedMacro`).
public struct DefaultsBackedMacro: AccessorMacro, PeerMacro {
    typealias Expansion = SQLiteDefaultsMacroExpansion.DefaultsBackedMacro

    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try Expansion.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Expansion.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@ObservableOnly` (see `SQLiteDefaultsMacroExpansion.ObservableOnlyMacro`).
public struct ObservableOnlyMacro: AccessorMacro, PeerMacro {
    typealias Expansion = SQLiteDefaultsMacroExpansion.ObservableOnlyMacro

    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try Expansion.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try Expansion.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@Ignore` (see `SQLiteDefaultsMacroExpansion.IgnoreMacro`).
public struct IgnoreMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try SQLiteDefaultsMacroExpansion.IgnoreMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}
#endif
