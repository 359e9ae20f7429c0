#if Observable
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ObservableDefaults`: makes a class `Observable`, marks its stored properties
/// `@DefaultsBacked` or `@ObservableOnly`, and adds the per-object storage, the
/// set-up function and (with `autoInit`) `init(store:ignoreExternalChanges:prefix:)`.
///
/// It is the one place that checks the class as a whole and each of its properties, so
/// that every mistake is reported once; the property macros expand only what it accepts.
public struct ObservableDefaultsMacro {
    static let storageName = "_$defaultsStorage"
    static let setUpName = "setUpDefaults"
}

// MARK: - Members

extension ObservableDefaultsMacro: MemberMacro {
    /// Adds the storage, `setUpDefaults(store:ignoreExternalChanges:prefix:)` and (with
    /// `autoInit`) the initializer; reports every problem of the class and its properties.
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(notAClassDiagnostic(declaration, attribute: node))
            return []
        }
        let options = MacroOptions(node, diagnose: context.diagnose)
        let persisted = checkedPersistedProperties(of: classDecl, options: options, in: context)
        let className = classDecl.name.trimmedDescription
        let prefixLiteral = StringLiteralExprSyntax.literal(options.prefix)

        var members: [DeclSyntax] = [
            """
            private let \(raw: storageName) = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: \(StringLiteralExprSyntax.literal(className)))
            """
        ]
        let parameters = "(store: SQLiteDefaults.DefaultsStore, ignoreExternalChanges: Swift.Bool = "
            + "\(options.ignoreExternalChanges), prefix: Swift.String = \(prefixLiteral.trimmedDescription))"
        if options.autoInit, !declaresGeneratedInit(classDecl) {
            let access = classDecl.modifiers.contains {
                $0.name.tokenKind == .keyword(.public) || $0.name.tokenKind == .keyword(.open)
            } ? "public " : ""
            members.append(
                """
                \(raw: access)init\(raw: parameters) {
                    \(raw: setUpName)(store: store, ignoreExternalChanges: ignoreExternalChanges, prefix: prefix)
                }
                """
            )
        }
        var body: [String] = persisted.map { "\($0.peerName).resolve(prefix: prefix)" }
        body.append("\(storageName).bind(to: store, observesStore: !ignoreExternalChanges)")
        if !persisted.isEmpty {
            let observations = persisted.map {
                "    \(storageName).observe(\($0.peerName), for: self, \\.\($0.identifier.text))"
            }
            body.append((["if !ignoreExternalChanges {"] + observations + ["}"]).joined(separator: "\n"))
        }
        members.append(
            """
            func \(raw: setUpName)\(raw: parameters) {
            \(raw: body.joined(separator: "\n"))
            }
            """
        )
        return members
    }

    /// Reports every problem of every member, and returns the properties that persist.
    private static func checkedPersistedProperties(
        of classDecl: ClassDeclSyntax,
        options: MacroOptions,
        in context: some MacroExpansionContext
    ) -> [PropertyModel] {
        var persisted: [PropertyModel] = []
        var owners: [String: PropertyModel] = [:]
        for member in classDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            guard let property = PropertyModel(variable) else {
                reportMultipleBindings(variable, in: context)
                continue
            }
            let role = property.role(observeFirst: options.observeFirst)
            let problems = property.problems(as: role, options: options)
            problems.forEach(context.diagnose)
            guard problems.isEmpty, case .persisted(let key) = role else { continue }
            if let owner = owners[key] {
                context.diagnose(Diagnostic(
                    node: property.keyNode,
                    message: MacroDiagnostic.keyCollision(key: options.prefix + key, name: property.name, otherName: owner.name),
                    notes: [Note(node: owner.keyNode, message: MacroNote.keyFirstUsed(name: owner.name))]
                ))
            } else {
                owners[key] = property
            }
            persisted.append(property)
        }
        return persisted
    }

    /// `var a = 1, b = 2` cannot take accessors; say so unless the declaration is ignored.
    private static func reportMultipleBindings(_ variable: VariableDeclSyntax, in context: some MacroExpansionContext) {
        guard variable.bindings.count > 1 else { return }
        let isStatic = variable.modifiers.contains {
            $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class)
        }
        let isIgnored = variable.attributes.attribute(named: RoleAttribute.ignore.rawValue) != nil
            || variable.attributes.attribute(named: RoleAttribute.observationIgnored.rawValue) != nil
        let isComputed = variable.bindings.contains { $0.accessorBlock != nil }
        guard !isStatic, !isIgnored, !isComputed else { return }
        context.diagnose(Diagnostic(node: variable.bindings, message: MacroDiagnostic.multipleBindings))
    }

    /// Whether the class already declares `init(store:ignoreExternalChanges:prefix:)`.
    private static func declaresGeneratedInit(_ classDecl: ClassDeclSyntax) -> Bool {
        classDecl.memberBlock.members.contains { member in
            guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { return false }
            let labels = initializer.signature.parameterClause.parameters.map(\.firstName.text)
            return labels == ["store", "ignoreExternalChanges", "prefix"]
        }
    }

    private static func notAClassDiagnostic(_ declaration: some DeclGroupSyntax, attribute: AttributeSyntax) -> Diagnostic {
        let keyword: TokenSyntax?
        let kind: String
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            keyword = structDecl.structKeyword
            kind = "a struct"
        } else if let actorDecl = declaration.as(ActorDeclSyntax.self) {
            keyword = actorDecl.actorKeyword
            kind = "an actor"
        } else if declaration.is(EnumDeclSyntax.self) {
            keyword = nil
            kind = "an enum"
        } else if declaration.is(ProtocolDeclSyntax.self) {
            keyword = nil
            kind = "a protocol"
        } else {
            keyword = nil
            kind = "an extension"
        }
        let fixIts = keyword.map { keyword in
            [FixIt(
                message: MacroFixIt.makeFinalClass(kind: keyword.text),
                changes: [.replace(
                    oldNode: Syntax(keyword),
                    newNode: Syntax(TokenSyntax.identifier(
                        "final class",
                        leadingTrivia: keyword.leadingTrivia,
                        trailingTrivia: keyword.trailingTrivia
                    ))
                )]
            )]
        } ?? []
        return Diagnostic(node: attribute, message: MacroDiagnostic.notAClass(kind: kind), fixIts: fixIts)
    }
}

// MARK: - Member attributes

extension ObservableDefaultsMacro: MemberAttributeMacro {
    /// Marks each valid stored property `@DefaultsBacked` or `@ObservableOnly`.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
            let property = PropertyModel(variable)
        else { return [] }
        let options = MacroOptions(node)
        let role = property.role(observeFirst: options.observeFirst)
        guard property.problems(as: role, options: options).isEmpty else { return [] }
        switch role {
        case .persisted where property.attribute(.defaultsBacked) == nil:
            return [.named(RoleAttribute.defaultsBacked.rawValue)]
        case .observableOnly where property.attribute(.observableOnly) == nil:
            return [.named(RoleAttribute.observableOnly.rawValue)]
        default:
            return []
        }
    }
}

// MARK: - Observable conformance

extension ObservableDefaultsMacro: ExtensionMacro {
    /// Adds `extension Settings: nonisolated Observation.Observable {}`.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // Called with no protocols when the class already conforms.
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        // `nonisolated`: the conformance has no requirements, and store callbacks announce
        // changes from other threads, so it must not be isolated to the class's actor.
        let decl: DeclSyntax = "extension \(raw: type.trimmedDescription): nonisolated Observation.Observable {}"
        guard var ext = decl.as(ExtensionDeclSyntax.self) else { return [] }
        let availability = declaration.attributes.filter {
            if case .attribute(let attribute) = $0 { return attribute.simpleName == "available" }
            return false
        }
        if !availability.isEmpty {
            ext.attributes = AttributeListSyntax(availability.map { $0.with(\.trailingTrivia, .newline) })
        }
        return [ext]
    }
}

extension PropertyModel {
    /// The peer that holds the property's key (persisted) or value (observable only).
    var peerName: String { "_$" + name }
}
#endif
