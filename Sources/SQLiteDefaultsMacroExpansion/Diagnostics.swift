#if Observable
import SwiftDiagnostics
import SwiftSyntax

/// Every error and warning the SQLiteDefaults macros emit, with the words a user sees.
enum MacroDiagnostic: DiagnosticMessage {
    case notAClass(kind: String)
    case letProperty(name: String)
    case missingDefault(name: String, reason: MissingDefaultReason)
    case missingType(name: String, initializer: String)
    case keyCollision(key: String, name: String, otherName: String)
    case attributeOnComputed(attribute: String, name: String)
    case attributeOnStatic(attribute: String, name: String)
    case emptyKey(name: String)
    case keyNotLiteral
    case optionNotLiteral(label: String, expected: String)
    case multipleBindings
    case conflictingRoles(name: String, attributes: [String])
    case outsideObservableDefaults(attribute: String)

    enum MissingDefaultReason {
        /// The key's default value comes from the initializer.
        case persisted
        /// The generated `init(store:…)` cannot give the property a value.
        case generatedInit
    }

    var message: String {
        switch self {
        case .notAClass(let kind):
            return "'@ObservableDefaults' can only be applied to a class, not to \(kind)"
        case .letProperty(let name):
            return "'let' property '\(name)' cannot be persisted or observed; make it a 'var', or mark it '@Ignore'"
        case .missingDefault(let name, .persisted):
            return "persisted property '\(name)' needs a default value: it is what reads return until a value is stored"
        case .missingDefault(let name, .generatedInit):
            return "property '\(name)' needs a default value: the generated 'init(store:ignoreExternalChanges:prefix:)' "
                + "cannot set it (or use 'autoInit: false' and write your own init)"
        case .missingType(let name, let initializer):
            return "property '\(name)' needs an explicit type: its key's value type cannot be inferred from '\(initializer)'"
        case .keyCollision(let key, let name, let otherName):
            return "property '\(name)' uses the key \"\(key)\", which property '\(otherName)' already uses"
        case .attributeOnComputed(let attribute, let name):
            return "'@\(attribute)' requires a stored property; '\(name)' is computed"
        case .attributeOnStatic(let attribute, let name):
            return "'@\(attribute)' requires an instance property; '\(name)' is static"
        case .emptyKey(let name):
            return "the key of property '\(name)' must not be empty"
        case .keyNotLiteral:
            return "the key given to '@DefaultsBacked' must be a string literal"
        case .optionNotLiteral(let label, let expected):
            return "'\(label):' must be \(expected) literal"
        case .multipleBindings:
            return "'@ObservableDefaults' needs one property per 'var'; declare each property separately"
        case .conflictingRoles(let name, let attributes):
            return "property '\(name)' has \(attributes.map { "'@\($0)'" }.joined(separator: " and ")); use only one"
        case .outsideObservableDefaults(let attribute):
            return "'@\(attribute)' only works on a property of an '@ObservableDefaults' class"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "notAClass"
        case .letProperty: id = "letProperty"
        case .missingDefault: id = "missingDefault"
        case .missingType: id = "missingType"
        case .keyCollision: id = "keyCollision"
        case .attributeOnComputed: id = "attributeOnComputed"
        case .attributeOnStatic: id = "attributeOnStatic"
        case .emptyKey: id = "emptyKey"
        case .keyNotLiteral: id = "keyNotLiteral"
        case .optionNotLiteral: id = "optionNotLiteral"
        case .multipleBindings: id = "multipleBindings"
        case .conflictingRoles: id = "conflictingRoles"
        case .outsideObservableDefaults: id = "outsideObservableDefaults"
        }
        return MessageID(domain: "SQLiteDefaultsMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// Notes attached to a diagnostic, pointing at a second place in the source.
enum MacroNote: NoteMessage {
    case keyFirstUsed(name: String)

    var message: String {
        switch self {
        case .keyFirstUsed(let name): return "property '\(name)' uses the key here"
        }
    }

    var noteID: MessageID {
        switch self {
        case .keyFirstUsed: return MessageID(domain: "SQLiteDefaultsMacros", id: "keyFirstUsed")
        }
    }
}

/// The titles of the fix-its offered with the diagnostics above.
enum MacroFixIt: FixItMessage {
    case makeFinalClass(kind: String)
    case letToVar
    case addIgnore
    case addDefault(String?)
    case removeAttribute(String)
    case usePropertyName

    var message: String {
        switch self {
        case .makeFinalClass(let kind): return "Replace '\(kind)' with 'final class'"
        case .letToVar: return "Replace 'let' with 'var'"
        case .addIgnore: return "Mark the property '@Ignore'"
        case .addDefault(let value?): return "Add the default value '\(value)'"
        case .addDefault(nil): return "Add a default value"
        case .removeAttribute(let name): return "Remove '@\(name)'"
        case .usePropertyName: return "Remove the empty key to use the property's name"
        }
    }

    var fixItID: MessageID {
        let id: String
        switch self {
        case .makeFinalClass: id = "makeFinalClass"
        case .letToVar: id = "letToVar"
        case .addIgnore: id = "addIgnore"
        case .addDefault: id = "addDefault"
        case .removeAttribute: id = "removeAttribute"
        case .usePropertyName: id = "usePropertyName"
        }
        return MessageID(domain: "SQLiteDefaultsMacros", id: id)
    }
}
#endif
