#if Observable
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// What the macros do with one property of an `@ObservableDefaults` class.
enum PropertyRole: Equatable {
    /// Persisted under `key` (before the prefix) and observable.
    case persisted(key: String)
    /// Observable, kept in memory.
    case observableOnly
    /// Left as written.
    case ignored
    /// Not a candidate at all: static, computed, or not a single named property.
    case notApplicable
}

/// The property attributes of this package, by their role.
enum RoleAttribute: String, CaseIterable {
    case defaultsBacked = "DefaultsBacked"
    case observableOnly = "ObservableOnly"
    case ignore = "Ignore"
    /// Observation's own opt-out, honoured like `@Ignore`.
    case observationIgnored = "ObservationIgnored"
}

/// One `var`/`let` member, read once and shared by every macro that looks at it, so that
/// the member macro, the member-attribute macro and the property macros agree.
struct PropertyModel {
    let decl: VariableDeclSyntax
    let binding: PatternBindingSyntax
    /// The name token, in the source tree (for diagnostics).
    let nameToken: TokenSyntax
    /// The name as written (backticks kept), trimmed (for generated code).
    var identifier: TokenSyntax { nameToken.trimmed }
    /// The name as a key: without backticks.
    let name: String

    /// Reads a member declaration with exactly one identifier binding; `nil` otherwise.
    init?(_ decl: VariableDeclSyntax) {
        guard decl.bindings.count == 1, let binding = decl.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        self.decl = decl
        self.binding = binding
        self.nameToken = pattern.identifier
        self.name = pattern.identifier.identifier?.name ?? pattern.identifier.trimmedDescription
    }

    var type: TypeSyntax? { binding.typeAnnotation?.type.trimmed }
    var initializer: ExprSyntax? { binding.initializer?.value.trimmed }
    var isLet: Bool { decl.bindingSpecifier.tokenKind == .keyword(.let) }
    var isStatic: Bool { decl.modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) } }
    var isLazy: Bool { decl.modifiers.contains { $0.name.tokenKind == .keyword(.lazy) } }

    /// Whether the property has a getter (or a bare getter body), not only observers.
    var isComputed: Bool {
        guard let accessors = binding.accessorBlock?.accessors else { return false }
        switch accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains { accessor in
                switch accessor.accessorSpecifier.tokenKind {
                case .keyword(.willSet), .keyword(.didSet): return false
                default: return true
                }
            }
        }
    }

    var willSet: AccessorDeclSyntax? { observer(.willSet) }
    var didSet: AccessorDeclSyntax? { observer(.didSet) }

    private func observer(_ keyword: Keyword) -> AccessorDeclSyntax? {
        guard case .accessors(let list) = binding.accessorBlock?.accessors else { return nil }
        return list.first { $0.accessorSpecifier.tokenKind == .keyword(keyword) }
    }

    /// Whether the declared type is an `Optional` (so a missing initializer means `nil`).
    var isOptional: Bool { type?.isOptional ?? false }

    /// This package's role attributes written on the property, in source order.
    var roleAttributes: [(RoleAttribute, AttributeSyntax)] {
        decl.attributes.compactMap { element in
            guard case .attribute(let attribute) = element, let name = attribute.simpleName,
                let role = RoleAttribute(rawValue: name)
            else { return nil }
            return (role, attribute)
        }
    }

    func attribute(_ role: RoleAttribute) -> AttributeSyntax? {
        roleAttributes.first { $0.0 == role }?.1
    }

    /// The `@DefaultsBacked("key")` argument, when there is one.
    var keyArgument: ExprSyntax? {
        guard let attribute = attribute(.defaultsBacked), case .argumentList(let arguments) = attribute.arguments,
            let first = arguments.first, !first.expression.is(NilLiteralExprSyntax.self)
        else { return nil }
        return first.expression
    }

    /// The key before the prefix: the `@DefaultsBacked` argument or the property's name;
    /// `nil` when the argument is not a plain string literal.
    var keySuffix: String? {
        guard let argument = keyArgument else { return name }
        return argument.as(StringLiteralExprSyntax.self)?.representedLiteralValue
    }

    /// The node a key-related diagnostic points at.
    var keyNode: Syntax { keyArgument.map(Syntax.init) ?? Syntax(nameToken) }

    /// The role the property gets in a class with these options.
    func role(observeFirst: Bool) -> PropertyRole {
        if isStatic { return .notApplicable }
        let roles = roleAttributes.map(\.0)
        if roles.contains(.ignore) || roles.contains(.observationIgnored) { return .ignored }
        if isComputed { return .notApplicable }
        if isLazy { return .ignored }
        if roles.contains(.observableOnly) { return .observableOnly }
        if roles.contains(.defaultsBacked) { return .persisted(key: keySuffix ?? name) }
        return observeFirst ? .observableOnly : .persisted(key: name)
    }

    /// The stored instance property `declaration` declares, when a peer macro may expand it in
    /// `role`: inside an `@ObservableDefaults` class and with nothing wrong (problems are
    /// reported by `@ObservableDefaults`, which sees the whole class).
    static func expandable(
        _ declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext,
        role: (PropertyModel) -> PropertyRole
    ) -> PropertyModel? {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = PropertyModel(variable),
            !property.isStatic, let options = MacroOptions.enclosing(in: context)
        else { return nil }
        guard property.problems(as: role(property), options: options).isEmpty else { return nil }
        return property
    }

    /// Everything wrong with the property in `role`, collisions aside (those need the
    /// whole class). Empty means the property macros may expand it.
    func problems(as role: PropertyRole, options: MacroOptions) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        let roles = roleAttributes
        let distinctRoles = Set(roles.map(\.0)).subtracting([.observationIgnored])
        if distinctRoles.count > 1 {
            let names = roles.map(\.0.rawValue)
            let fixIts = roles.dropFirst().map { role, attribute in
                FixIt(
                    message: MacroFixIt.removeAttribute(role.rawValue),
                    changes: [.replace(oldNode: Syntax(decl), newNode: Syntax(decl.removingAttribute(attribute)))]
                )
            }
            problems.append(Diagnostic(node: roles[1].1, message: MacroDiagnostic.conflictingRoles(name: name, attributes: names), fixIts: fixIts))
            return problems
        }
        if isComputed || isStatic {
            for attributeRole in [RoleAttribute.defaultsBacked, .observableOnly] {
                guard let attribute = attribute(attributeRole) else { continue }
                let message = isStatic
                    ? MacroDiagnostic.attributeOnStatic(attribute: attributeRole.rawValue, name: name)
                    : MacroDiagnostic.attributeOnComputed(attribute: attributeRole.rawValue, name: name)
                problems.append(Diagnostic(
                    node: attribute,
                    message: message,
                    fixIts: [FixIt(
                        message: MacroFixIt.removeAttribute(attributeRole.rawValue),
                        changes: [.replace(oldNode: Syntax(decl), newNode: Syntax(decl.removingAttribute(attribute)))]
                    )]
                ))
            }
            return problems
        }
        switch role {
        case .notApplicable:
            return problems
        case .ignored:
            if options.autoInit, initializer == nil, !(isOptional && !isLet) {
                problems.append(missingDefault(.generatedInit))
            }
            return problems
        case .persisted, .observableOnly:
            break
        }
        if isLet {
            problems.append(Diagnostic(
                node: decl.bindingSpecifier,
                message: MacroDiagnostic.letProperty(name: name),
                fixIts: [
                    FixIt(message: MacroFixIt.letToVar, changes: [
                        .replace(oldNode: Syntax(decl.bindingSpecifier), newNode: Syntax(decl.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
                    ]),
                    FixIt(message: MacroFixIt.addIgnore, changes: [
                        .replace(oldNode: Syntax(decl), newNode: Syntax(decl.addingAttribute(RoleAttribute.ignore.rawValue)))
                    ]),
                ]
            ))
            return problems
        }
        if role == .observableOnly {
            if options.autoInit, initializer == nil, !isOptional {
                problems.append(missingDefault(.generatedInit))
            }
            return problems
        }
        // Persisted.
        if let argument = keyArgument {
            if let literal = argument.as(StringLiteralExprSyntax.self), let value = literal.representedLiteralValue {
                if value.isEmpty {
                    problems.append(Diagnostic(
                        node: argument,
                        message: MacroDiagnostic.emptyKey(name: name),
                        fixIts: attribute(.defaultsBacked).map { attribute in
                            [FixIt(message: MacroFixIt.usePropertyName, changes: [
                                .replace(oldNode: Syntax(attribute), newNode: Syntax(attribute.with(\.leftParen, nil).with(\.arguments, nil).with(\.rightParen, nil)))
                            ])]
                        } ?? []
                    ))
                }
            } else {
                problems.append(Diagnostic(node: argument, message: MacroDiagnostic.keyNotLiteral))
            }
        }
        if initializer == nil {
            if type != nil, !isOptional {
                problems.append(missingDefault(.persisted))
            }
            // No type and no initializer: the compiler itself reports the missing annotation.
        } else if type == nil, let initializer = binding.initializer?.value, initializer.needsContextualType {
            problems.append(Diagnostic(
                node: initializer,
                message: MacroDiagnostic.missingType(name: name, initializer: initializer.trimmedDescription)
            ))
        }
        return problems
    }

    private func missingDefault(_ reason: MacroDiagnostic.MissingDefaultReason) -> Diagnostic {
        let suggested = type?.suggestedDefault
        let value = suggested ?? "<#default value#>"
        let newBinding = binding
            .with(\.typeAnnotation, binding.typeAnnotation?.with(\.trailingTrivia, []))
            .with(\.initializer, InitializerClauseSyntax(
                equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
                value: ExprSyntax(stringLiteral: value)
            ))
            .with(\.trailingTrivia, binding.trailingTrivia)
        return Diagnostic(
            node: binding.pattern,
            message: MacroDiagnostic.missingDefault(name: name, reason: reason),
            fixIts: [FixIt(message: MacroFixIt.addDefault(suggested), changes: [
                .replace(oldNode: Syntax(binding), newNode: Syntax(newBinding))
            ])]
        )
    }
}
#endif
