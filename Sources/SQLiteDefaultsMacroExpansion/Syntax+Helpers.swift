#if Observable
import SwiftSyntax
import SwiftSyntaxBuilder

extension AttributeSyntax {
    /// The attribute's name without module qualification: `DefaultsBacked` for both
    /// `@DefaultsBacked` and `@SQLiteDefaultsObservable.DefaultsBacked`.
    var simpleName: String? {
        if let identifier = attributeName.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = attributeName.as(MemberTypeSyntax.self) { return member.name.text }
        return nil
    }

    /// `@name`, with no arguments.
    static func named(_ name: String) -> AttributeSyntax {
        AttributeSyntax(attributeName: IdentifierTypeSyntax(name: .identifier(name)))
    }
}

extension AttributeListSyntax {
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            if case .attribute(let attribute) = element, attribute.simpleName == name { return attribute }
        }
        return nil
    }
}

extension VariableDeclSyntax {
    /// The declaration with `@name ` in front of everything else, keeping its indentation.
    func addingAttribute(_ name: String) -> VariableDeclSyntax {
        let leading = leadingTrivia
        var copy = self
        copy.leadingTrivia = []
        let attribute = AttributeSyntax.named(name).with(\.leadingTrivia, leading).with(\.trailingTrivia, .space)
        copy.attributes = AttributeListSyntax([.attribute(attribute)] + Array(copy.attributes))
        return copy
    }

    /// The declaration without `attribute`, keeping its indentation.
    func removingAttribute(_ attribute: AttributeSyntax) -> VariableDeclSyntax {
        let leading = leadingTrivia
        var copy = self
        copy.attributes = attributes.filter { Syntax($0).id != Syntax(attribute).id }
        copy.leadingTrivia = leading
        return copy
    }
}

extension TypeSyntax {
    /// `T?`, `T!` or `Optional<T>`.
    var isOptional: Bool {
        if self.is(OptionalTypeSyntax.self) || self.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = self.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == "Optional" && identifier.genericArgumentClause != nil
        }
        if let member = self.as(MemberTypeSyntax.self) {
            return member.name.text == "Optional" && member.baseType.trimmedDescription == "Swift"
        }
        return false
    }

    /// A default value for a fix-it, for the types that have an obvious one.
    var suggestedDefault: String? {
        if self.is(ArrayTypeSyntax.self) { return "[]" }
        if self.is(DictionaryTypeSyntax.self) { return "[:]" }
        let name: String
        if let identifier = self.as(IdentifierTypeSyntax.self) {
            name = identifier.name.text
        } else if let member = self.as(MemberTypeSyntax.self), member.baseType.trimmedDescription == "Swift" {
            name = member.name.text
        } else {
            return nil
        }
        switch name {
        case "String": return "\"\""
        case "Bool": return "false"
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
            "Double", "Float":
            return "0"
        case "Array", "Set": return "[]"
        case "Dictionary": return "[:]"
        default: return nil
        }
    }
}

extension ExprSyntax {
    /// An initializer whose type only its context decides (`nil`, `[]`, `[:]`, `.member`):
    /// without a type annotation neither the property nor its key can be typed.
    var needsContextualType: Bool {
        if self.is(NilLiteralExprSyntax.self) { return true }
        if let array = self.as(ArrayExprSyntax.self) { return array.elements.isEmpty }
        if let dictionary = self.as(DictionaryExprSyntax.self) {
            if case .colon = dictionary.content { return true }
            return false
        }
        if let member = self.as(MemberAccessExprSyntax.self) { return member.base == nil }
        if let call = self.as(FunctionCallExprSyntax.self), let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
            return member.base == nil
        }
        return false
    }
}

extension SyntaxProtocol {
    /// Whether an identifier token spelled `name` occurs inside (an observer body that uses
    /// `oldValue`, say).
    func mentions(_ name: String) -> Bool {
        tokens(viewMode: .sourceAccurate).contains { token in
            if case .identifier = token.tokenKind { return token.identifier?.name == name }
            return false
        }
    }
}

extension StringLiteralExprSyntax {
    /// A plain string literal holding `value`, escaped as needed.
    static func literal(_ value: String) -> ExprSyntax {
        ExprSyntax(StringLiteralExprSyntax(content: value))
    }
}
#endif
