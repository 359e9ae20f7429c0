#if Prefs
import PrefsFormats
import SQLiteDefaults

/// How `write` reads a value for a declared key: as the declared type, unless `--type` says
/// otherwise, and never a value the declaration refuses (one line naming key and type).
enum DeclaredValue {
    /// The value to store for `declaration`, from the command-line `text`.
    /// - Parameters:
    ///   - text: the value as typed.
    ///   - explicitType: `--type`, when given.
    ///   - declaration: the key's declaration.
    /// - Throws: ``PrefsError`` naming the key and the declared type.
    static func parse(_ text: String, explicitType: ValueType?, for declaration: DefaultsDeclaration) throws -> SQLiteValue {
        let declaredType = declaration.type
        let lead = "key \(ValueFormatting.quoted(declaration.key)) is declared \(declaration.type)"
        let stored: SQLiteValue
        do {
            stored = try (explicitType ?? declaredType).parse(text)
        } catch {
            if declaration.isSecret {
                throw PrefsError("\(lead): the value does not parse as \(explicitType ?? declaredType); nothing was written")
            }
            if let explicitType, explicitType != declaredType {
                throw PrefsError("\(lead); --type \(explicitType.rawValue) does not fit it: \(error.message); nothing was written")
            }
            throw PrefsError("\(lead): \(error.message); nothing was written")
        }
        guard declaration.accepts(stored) else {
            if let explicitType, explicitType != declaredType, !declaration.type.classMatchesStored(stored) {
                throw PrefsError("\(lead); --type \(explicitType.rawValue) gives a \(stored.storageClass) value, which it refuses; nothing was written")
            }
            var reason = "\(lead)"
            if let allowed = declaration.allowedValues { reason += " (allowed: \(allowed.joined(separator: ", ")))" }
            // A secret's value is not repeated, not even on standard error.
            let shown = declaration.isSecret ? "the value" : ValueFormatting.quoted(text)
            throw PrefsError("\(reason): \(shown) is refused; nothing was written")
        }
        return stored
    }
}

extension DefaultsValueKind {
    /// Whether a value of this storage class could be this kind, whatever its content.
    func classMatchesStored(_ value: SQLiteValue) -> Bool {
        switch value {
        case .integer: [.bool, .int, .double, .date].contains(self)
        case .real: [.double, .date].contains(self)
        case .text, .invalidUTF8Text: [.string, .url, .json].contains(self)
        case .blob: self == .data
        case .null: false
        }
    }
}
#endif
